/**
 * The multi-server client: servers by name, calls routed by tool name or by `{ server }`,
 * batches, and one place to listen to every server's notifications.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type * as Handlers from "./Handlers.js"
import * as internal from "./internal/client/mcpClient.js"
import type {
  AmbiguousServerError,
  AmbiguousToolError,
  CapabilityError,
  ConfigError,
  ConnectError,
  InputRequiredError,
  ServerNotFoundError,
  ToolNotFoundError,
  ValidationError
} from "./McpError.js"
import type * as McpSchema from "./McpSchema.js"
import type { ProtocolMode } from "./Protocol.js"
import type { Progress } from "./RpcPeer.js"
import type { ServerConfig } from "./ServerConfig.js"
import type {
  CacheInfo as ServerConnectionCacheInfo,
  NotificationListener,
  Options as ServerConnectionOptions,
  Page,
  RawRequestError,
  RawRequestOptions,
  RequestOptions,
  ServerConnection,
  TaskCallOptions,
  TaskError as ServerTaskError,
  UnsafeCallTool
} from "./ServerConnection.js"
import type * as Subscription from "./Subscription.js"
import type * as Task from "./Task.js"

/**
 * A tool together with the server that offers it.
 *
 * @since 0.1.0
 * @category models
 */
export type ServerTool = McpSchema.Tool & { readonly server: string }

/**
 * A prompt together with the server that offers it.
 *
 * @since 0.1.0
 * @category models
 */
export type ServerPrompt = McpSchema.Prompt & { readonly server: string }

/**
 * A resource together with the server that offers it.
 *
 * @since 0.1.0
 * @category models
 */
export type ServerResource = McpSchema.Resource & { readonly server: string }

/**
 * A resource template together with the server that offers it.
 *
 * @since 0.1.0
 * @category models
 */
export type ServerResourceTemplate = McpSchema.ResourceTemplate & { readonly server: string }

/**
 * Options of a call: the per-request options and the server to send it to.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallOptions extends RequestOptions {
  /** Route to this server instead of looking the name up across servers. */
  readonly server?: string | undefined
}

/**
 * Selects the servers a list call asks.
 *
 * @since 0.1.0
 * @category models
 */
export interface ListOptions extends RequestOptions {
  readonly server?: string | undefined
}

/**
 * One chunk of `callToolStreaming`.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolChunk =
  | { readonly _tag: "Progress"; readonly progress: Progress }
  | { readonly _tag: "Result"; readonly result: McpSchema.CallToolResult }

/**
 * One call of a batch.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolCall {
  readonly name: string
  readonly arguments?: Record<string, unknown> | undefined
  readonly server?: string | undefined
}

/**
 * Errors of a call routed by tool name.
 *
 * @since 0.1.0
 * @category models
 */
export type CallToolError =
  | ValidationError
  | ConnectError
  | InputRequiredError
  | ToolNotFoundError
  | AmbiguousToolError
  | ServerNotFoundError

/**
 * What a task operation can fail with: a bare task id with several servers and no `server`
 * is an `AmbiguousServerError`.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskError = ServerTaskError | AmbiguousServerError

/**
 * @since 0.1.0
 * @category models
 */
export interface Options<R = never> {
  readonly servers: ReadonlyArray<ServerConfig<R>>
  /** How the client introduces itself (default `mcp-effect` and this package's version). */
  readonly clientInfo?: McpSchema.Implementation | undefined
  /** Most pages one list call follows (default 100). */
  readonly maxPages?: number | undefined
  /** A listener registered before any server connects, so it also sees the first notifications. */
  readonly onNotification?: NotificationListener | undefined
  /** Answers servers' requests for input (elicitation, sampling, roots). */
  readonly handlers?: Handlers.Handlers | undefined
  /** `auto` (default): probe with `server/discover`, fall back to `initialize`. */
  readonly protocol?: ProtocolMode | undefined
  /** Bound on the `server/discover` probe (default 5 seconds). */
  readonly discoverTimeout?: Duration.DurationInput | undefined
  /** Host `_meta` merged into every 2026-07-28 request (a value, or an effect run per request). */
  readonly requestMeta?: Record<string, unknown> | Effect.Effect<Record<string, unknown>> | undefined
  /** Extensions to declare, e.g. `["io.modelcontextprotocol/tasks"]` (task results polled transparently). */
  readonly extensions?: ReadonlyArray<string> | undefined
  /**
   * Output validation: `"warn"` (default) logs a violation, `"strict"` fails with `ValidationError`.
   * Strict fails closed: an `outputSchema` that cannot be used (an external `$ref`, nothing being
   * fetched; a bound of `JsonSchema.Limits` passed; the time budget) fails the call too, naming
   * why in `ValidationError.unusable`; warn logs it and returns the result unvalidated.
   */
  readonly validateStructuredContent?: "warn" | "strict" | undefined
  /** Decides `requestState`-only retries (see `ServerConnection.Options.onInputRequiredWait`). */
  readonly onInputRequiredWait?: ServerConnectionOptions["onInputRequiredWait"]
  /** Spans and metrics (default: when a tracer is installed); see `Telemetry.Options`. */
  readonly tracing?: ServerConnectionOptions["tracing"]
  /** W3C trace context in each request's `params._meta` while tracing (default `true`; per server: `ServerConfig`). */
  readonly propagateTraceContext?: boolean | undefined
  /** Hears each server's state changes as they happen, from its first `Connecting` on. */
  readonly onStateChange?: ServerConnectionOptions["onStateChange"]
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly servers: ReadonlyArray<ServerConnection>
  readonly server: (name: string) => Effect.Effect<ServerConnection, ServerNotFoundError>
  readonly listTools: (
    options?: ListOptions
  ) => Effect.Effect<ReadonlyArray<ServerTool>, ConnectError | ServerNotFoundError>
  readonly findTool: (
    name: string,
    options?: { readonly server?: string | undefined }
  ) => Effect.Effect<ServerTool, CallToolError>
  readonly callTool: (
    name: string,
    args?: Record<string, unknown>,
    options?: CallOptions
  ) => Effect.Effect<McpSchema.CallToolResult, CallToolError>
  /**
   * `callTool` without a fiber, for callers outside Effect (the Promise facade), when the
   * server is known without a lookup (one server, or `options.server`) and its connection can
   * (see `ServerConnection.UnsafeCallTool`); `undefined` otherwise: use `callTool`.
   */
  readonly unsafeCallTool?:
    | ((
      name: string,
      args: Record<string, unknown> | undefined,
      options: CallOptions | undefined,
      onDone: Parameters<UnsafeCallTool>[3]
    ) => (() => void) | undefined)
    | undefined
  /**
   * A tool call as a stream: its progress as it arrives, then the result (validated like
   * `callTool`'s) as the last chunk.
   */
  readonly callToolStreaming: (
    name: string,
    args?: Record<string, unknown>,
    options?: CallOptions
  ) => Stream.Stream<ToolChunk, CallToolError>
  /** Runs the calls concurrently; results in the order of the calls. Fails with the first error. */
  readonly callTools: (
    calls: ReadonlyArray<ToolCall>,
    options?: RequestOptions
  ) => Effect.Effect<ReadonlyArray<McpSchema.CallToolResult>, CallToolError>
  /** Starts a tool as a task on the server that offers it; see `ServerConnection.callToolAsTask`. */
  readonly callToolAsTask: (
    name: string,
    args?: Record<string, unknown>,
    options?: TaskCallOptions & { readonly server?: string | undefined }
  ) => Effect.Effect<Task.Task, CallToolError | CapabilityError>
  /**
   * The task operations, routed to a handle's own server; a bare id needs `server` unless
   * there is a single server. See `ServerConnection`.
   */
  readonly getTask: (
    task: Task.Task | string,
    options?: CallOptions
  ) => Effect.Effect<Task.Task, TaskError | ValidationError>
  readonly getTaskResult: (
    task: Task.Task | string,
    options?: CallOptions
  ) => Effect.Effect<McpSchema.CallToolResult, TaskError | InputRequiredError | ValidationError>
  readonly waitForTask: (
    task: Task.Task | string,
    options?: { readonly server?: string | undefined; readonly timeout?: Duration.DurationInput | undefined }
  ) => Effect.Effect<Task.Task, TaskError | InputRequiredError | ValidationError>
  readonly cancelTask: (
    task: Task.Task | string,
    options?: CallOptions
  ) => Effect.Effect<Task.Task, TaskError | ValidationError>
  readonly updateTask: (
    task: Task.Task | string,
    inputResponses: Record<string, unknown>,
    options?: CallOptions
  ) => Effect.Effect<void, TaskError>
  /**
   * 2025-11-25 `tasks/list` of `{ server }`, or of every server that declares `tasks.list`
   * (each handle names its server).
   */
  readonly listTasks: (options?: ListOptions) => Effect.Effect<ReadonlyArray<Task.Task>, TaskError>
  readonly listPrompts: (
    options?: ListOptions
  ) => Effect.Effect<ReadonlyArray<ServerPrompt>, ConnectError | ServerNotFoundError>
  /**
   * One page of `tools/list` of `{ server }` (or of the only server) from `cursor`, not cached
   * (see `ServerConnection.listToolsPage`).
   */
  readonly listToolsPage: (
    cursor?: string,
    options?: ListOptions
  ) => Effect.Effect<Page<ServerTool>, ConnectError | ServerNotFoundError>
  readonly listPromptsPage: (
    cursor?: string,
    options?: ListOptions
  ) => Effect.Effect<Page<ServerPrompt>, ConnectError | ServerNotFoundError>
  readonly listResourcesPage: (
    cursor?: string,
    options?: ListOptions
  ) => Effect.Effect<Page<ServerResource>, ConnectError | ServerNotFoundError>
  readonly listResourceTemplatesPage: (
    cursor?: string,
    options?: ListOptions
  ) => Effect.Effect<Page<ServerResourceTemplate>, ConnectError | ServerNotFoundError>
  /**
   * A request by method name to `{ server }` (or the only server); see
   * `ServerConnection.request`. `options.schema` decodes the result.
   */
  readonly request: <A = unknown, I = unknown>(
    method: string,
    params?: Record<string, unknown>,
    options?: RawRequestOptions<A, I> & { readonly server?: string | undefined }
  ) => Effect.Effect<A, RawRequestError | ServerNotFoundError>
  /** A notification by method name to `{ server }` (or the only server). */
  readonly notify: (
    method: string,
    params?: Record<string, unknown>,
    options?: { readonly server?: string | undefined }
  ) => Effect.Effect<void, ConnectError | ServerNotFoundError>
  readonly getPrompt: (
    name: string,
    args?: Record<string, string>,
    options?: CallOptions
  ) => Effect.Effect<McpSchema.GetPromptResult, ConnectError | InputRequiredError | ServerNotFoundError>
  readonly listResources: (
    options?: ListOptions
  ) => Effect.Effect<ReadonlyArray<ServerResource>, ConnectError | ServerNotFoundError>
  readonly listResourceTemplates: (
    options?: ListOptions
  ) => Effect.Effect<ReadonlyArray<ServerResourceTemplate>, ConnectError | ServerNotFoundError>
  readonly readResource: (
    uri: string,
    options?: CallOptions
  ) => Effect.Effect<McpSchema.ReadResourceResult, ConnectError | InputRequiredError | ServerNotFoundError>
  /** Continues an `input_required` request the client stopped, on the server that sent it. */
  readonly resumeInputRequired: (
    error: InputRequiredError,
    inputResponses: Record<string, unknown>
  ) => Effect.Effect<unknown, ConnectError | InputRequiredError | ServerNotFoundError>
  readonly complete: (
    request: McpSchema.CompleteRequest,
    options?: CallOptions
  ) => Effect.Effect<McpSchema.CompleteResult, ConnectError | CapabilityError | ServerNotFoundError>
  readonly ping: (options?: CallOptions) => Effect.Effect<void, ConnectError | ServerNotFoundError>
  /** Sets the log level on every server that declares `logging` (or on `{ server }`, gated). */
  readonly setLogLevel: (
    level: McpSchema.LoggingLevel,
    options?: CallOptions
  ) => Effect.Effect<void, ConnectError | CapabilityError | ServerNotFoundError>
  readonly subscribeResource: (
    uri: string,
    options?: CallOptions
  ) => Effect.Effect<void, ConnectError | CapabilityError | ServerNotFoundError>
  readonly unsubscribeResource: (
    uri: string,
    options?: CallOptions
  ) => Effect.Effect<void, ConnectError | CapabilityError | ServerNotFoundError>
  /** Opens a `subscriptions/listen` stream on `{ server }` (or the only server) in the current scope. */
  readonly listen: (
    filter: Subscription.Filter,
    options?: { readonly server?: string | undefined; readonly ackTimeout?: Duration.DurationInput | false | undefined }
  ) => Effect.Effect<Subscription.Subscription, ConnectError | CapabilityError | ServerNotFoundError, Scope.Scope>
  /**
   * Replaces the roots every server is offered and tells legacy sessions that declared roots
   * (`notifications/roots/list_changed`). A client built without roots declares them from
   * now on (legacy sessions re-initialize on their next use; see `ServerConnection.setRoots`).
   */
  readonly setRoots: (roots: ReadonlyArray<Handlers.Root>) => Effect.Effect<void>
  /** Drops the cached results (lists, reads, discovery) of every server, or of `server`. */
  readonly clearCache: (server?: string) => Effect.Effect<void, ServerNotFoundError>
  /** What the cache of `{ server }` (or of the only server) holds (see `ServerConnection.cacheInfo`). */
  readonly cacheInfo: (
    kind: Parameters<ServerConnection["cacheInfo"]>[0],
    options?: { readonly server?: string | undefined; readonly uri?: string | undefined }
  ) => Effect.Effect<ServerConnectionCacheInfo | undefined, ServerNotFoundError>
  /** The roots currently offered. */
  readonly roots: () => ReadonlyArray<Handlers.Root>
  /** Registers a listener for every server's notifications until the scope closes. */
  readonly onNotification: (listener: NotificationListener) => Effect.Effect<void, never, Scope.Scope>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class McpClient extends Context.Tag("@mcp-effect/client/McpClient")<McpClient, Service>() {}

/**
 * Connects every configured server (concurrently) in the current scope. Server names must be
 * unique, and no configuration may carry a `configError` (a `ConfigError` then, before any
 * server is started).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: <R>(options: Options<R>) => Effect.Effect<Service, ConnectError | ConfigError, Scope.Scope | R> =
  internal.make

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = <R>(options: Options<R>): Layer.Layer<McpClient, ConnectError | ConfigError, R> =>
  Layer.scoped(McpClient, make(options))
