/**
 * A connection to one MCP server, whatever its era and transport: it opens the transport,
 * runs the era's opening exchange, reopens after the server died, and implements the
 * features (pagination, list caches, `_meta` lifting, progress) once for every era.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Handlers from "./Handlers.js"
import * as internal from "./internal/connection/serverConnection.js"
import type { JsonSchema } from "./JsonSchema.js"
import type {
  CapabilityError,
  ConnectError,
  InputRequiredError,
  ServerNotFoundError,
  TaskReplacedError,
  ValidationError
} from "./McpError.js"
import type * as McpSchema from "./McpSchema.js"
import type { Negotiated, ProtocolMode } from "./Protocol.js"
import type { Progress } from "./RpcPeer.js"
import type { ServerConfig } from "./ServerConfig.js"
import type * as Subscription from "./Subscription.js"
import type * as Task from "./Task.js"

/**
 * Per-call options of a request.
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestOptions {
  /** Overrides the server's `readTimeout` for this call. */
  readonly timeout?: Duration.DurationInput | undefined
  /** Receives this call's `notifications/progress`. */
  readonly onProgress?: ((progress: Progress) => void) | undefined
}

/**
 * Options of `callToolAsTask`.
 *
 * @since 0.1.0
 * @category models
 */
export interface TaskCallOptions extends RequestOptions {
  /** Requested lifetime (2025-11-25 `ttl`; a 2026-07-28 server grants its own `ttlMs`). */
  readonly ttl?: Duration.DurationInput | undefined
}

/**
 * What a task operation can fail with.
 *
 * @since 0.1.0
 * @category models
 */
export type TaskError = ConnectError | CapabilityError | TaskReplacedError | ServerNotFoundError

/**
 * What the host is told before a `requestState`-only retry.
 *
 * @since 0.1.0
 * @category models
 */
export interface InputRequiredWait {
  readonly method: string
  readonly round: number
  /** The pause the client would make. */
  readonly delayMs: number
  readonly requestState: string
  readonly elapsedMs: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface CacheInfo {
  readonly ttlMs: number | undefined
  readonly cacheScope: "public" | "private"
  readonly receivedAt: number
  readonly fresh: boolean
}

/**
 * A host listener for server notifications, called after the client's own bookkeeping.
 *
 * @since 0.1.0
 * @category models
 */
export type NotificationListener = (
  server: string,
  method: string,
  params: Record<string, unknown> | undefined
) => void

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly clientInfo: McpSchema.Implementation
  /** Checks structured tool results against their `outputSchema` (and input dialects). */
  readonly jsonSchema?: JsonSchema["Type"] | undefined
  /** `"warn"` (default): a violation is logged; `"strict"`: it fails the call with `ValidationError`. */
  readonly validateStructuredContent?: "warn" | "strict" | undefined
  /** Extensions the client declares (e.g. `io.modelcontextprotocol/tasks`). */
  readonly extensions?: ReadonlyArray<string> | undefined
  /** Answers the server's requests for input; their presence derives the client capabilities. */
  readonly handlers?: Handlers.Handlers | undefined
  /** `auto` (default) probes with `server/discover` and falls back to `initialize`. */
  readonly protocol?: ProtocolMode | undefined
  /** Bound on the `server/discover` probe (default 5 seconds). */
  readonly discoverTimeout?: Duration.DurationInput | undefined
  /**
   * Decides what happens when a server answers `input_required` with only a `requestState`
   * (load shedding): `"retry"` now, `"cancel"` (an `InputRequiredError`), or a pause in
   * milliseconds. Default: a pause that doubles per round from 50 ms. The whole wait never
   * exceeds the request's timeout.
   */
  readonly onInputRequiredWait?: ((wait: InputRequiredWait) => Effect.Effect<"retry" | "cancel" | number>) | undefined
  /** Host `_meta` merged into every 2026-07-28 request (a value, or an effect run per request). */
  readonly requestMeta?: Record<string, unknown> | Effect.Effect<Record<string, unknown>> | undefined
  /** Called for every server notification, after list caches were invalidated. */
  readonly onNotification: NotificationListener
  /** Most pages one list call follows before it stops with a warning (default 100). */
  readonly maxPages?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ServerConnection {
  readonly name: string
  readonly kind: string
  /** What the last opening exchange established; `undefined` before the first one. */
  readonly negotiated: () => Negotiated | undefined
  /** Opens the connection if it is not open (again, after the server died). */
  readonly connect: Effect.Effect<Negotiated, ConnectError>
  readonly ping: (options?: RequestOptions) => Effect.Effect<void, ConnectError>
  readonly listTools: (options?: RequestOptions) => Effect.Effect<ReadonlyArray<McpSchema.Tool>, ConnectError>
  readonly callTool: (
    name: string,
    args?: Record<string, unknown>,
    options?: RequestOptions
  ) => Effect.Effect<McpSchema.CallToolResult, ConnectError | InputRequiredError | ValidationError>
  /**
   * Starts a tool as a task and returns its handle at once (2025-11-25: task-augmented, with
   * `ttl`, needs `tasks.requests.tools.call`; 2026-07-28: needs the tasks extension declared,
   * `ttl` is ignored, and a server that answers with the result yields a completed handle).
   */
  readonly callToolAsTask: (
    name: string,
    args?: Record<string, unknown>,
    options?: TaskCallOptions
  ) => Effect.Effect<Task.Task, ConnectError | CapabilityError | InputRequiredError | ValidationError>
  /** `tasks/get`: the task's current state (on 2026-07-28 with its result or input requests inline). */
  readonly getTask: (
    task: Task.Task | string,
    options?: RequestOptions
  ) => Effect.Effect<Task.Task, TaskError | ValidationError>
  /**
   * The tool's result: `tasks/result` on 2025-11-25 (blocks until the task ends); on 2026-07-28
   * `tasks/get` polled until it completes (an `input_required` task stops with
   * `InputRequiredError`: `waitForTask` answers those). A failed task is a `ServerError`.
   */
  readonly getTaskResult: (
    task: Task.Task | string,
    options?: RequestOptions
  ) => Effect.Effect<McpSchema.CallToolResult, TaskError | InputRequiredError | ValidationError>
  /**
   * Polls the task at the server's pace until it is terminal, answering its input requests
   * through the handlers (each once); returns the terminal handle, with its result when completed.
   * `timeout` bounds the whole wait (`RequestTimeoutError`).
   */
  readonly waitForTask: (
    task: Task.Task | string,
    options?: { readonly timeout?: Duration.DurationInput | undefined }
  ) => Effect.Effect<Task.Task, TaskError | InputRequiredError | ValidationError>
  /** `tasks/cancel` (cooperative: the returned state may still be `working`). */
  readonly cancelTask: (
    task: Task.Task | string,
    options?: RequestOptions
  ) => Effect.Effect<Task.Task, TaskError | ValidationError>
  /** 2026-07-28 `tasks/update`: the host's own answers to a task's input requests. */
  readonly updateTask: (
    task: Task.Task | string,
    inputResponses: Record<string, unknown>,
    options?: RequestOptions
  ) => Effect.Effect<void, TaskError>
  /** 2025-11-25 `tasks/list`, every page; 2026-07-28 has none (`CapabilityError`). */
  readonly listTasks: (options?: RequestOptions) => Effect.Effect<ReadonlyArray<Task.Task>, TaskError>
  /**
   * What the cache holds for a list or a read: its `ttlMs` (absent: kept until a change
   * notification), `cacheScope`, when it arrived and whether it is still fresh.
   */
  readonly cacheInfo: (
    kind: "tools" | "prompts" | "resources" | "resourceTemplates" | "read",
    uri?: string
  ) => Effect.Effect<CacheInfo | undefined>
  /**
   * Opens a `subscriptions/listen` stream (2026-07-28) in the current scope and waits for its
   * acknowledgement (bounded by `ackTimeout`, default the read timeout; `false` waits for ever).
   */
  readonly listen: (
    filter: Subscription.Filter,
    options?: { readonly ackTimeout?: Duration.DurationInput | false | undefined }
  ) => Effect.Effect<Subscription.Subscription, ConnectError | CapabilityError, Scope.Scope>
  /**
   * Tells a legacy session that declared roots that they changed
   * (`notifications/roots/list_changed`); nothing on 2026-07-28 or plain HTTP.
   */
  readonly notifyRootsChanged: Effect.Effect<void>
  /** Continues an `input_required` request the client stopped, with the host's answers. */
  readonly resumeInputRequired: (
    error: InputRequiredError,
    inputResponses: Record<string, unknown>
  ) => Effect.Effect<unknown, ConnectError | InputRequiredError>
  readonly listPrompts: (options?: RequestOptions) => Effect.Effect<ReadonlyArray<McpSchema.Prompt>, ConnectError>
  readonly getPrompt: (
    name: string,
    args?: Record<string, string>,
    options?: RequestOptions
  ) => Effect.Effect<McpSchema.GetPromptResult, ConnectError | InputRequiredError>
  readonly listResources: (
    options?: RequestOptions
  ) => Effect.Effect<ReadonlyArray<McpSchema.Resource>, ConnectError>
  readonly listResourceTemplates: (
    options?: RequestOptions
  ) => Effect.Effect<ReadonlyArray<McpSchema.ResourceTemplate>, ConnectError>
  readonly readResource: (
    uri: string,
    options?: RequestOptions
  ) => Effect.Effect<McpSchema.ReadResourceResult, ConnectError | InputRequiredError>
  readonly complete: (
    request: McpSchema.CompleteRequest,
    options?: RequestOptions
  ) => Effect.Effect<McpSchema.CompleteResult, ConnectError | CapabilityError>
  /** Asks the server to send `notifications/message` at `level` and above (needs `logging`). */
  readonly setLogLevel: (
    level: McpSchema.LoggingLevel,
    options?: RequestOptions
  ) => Effect.Effect<void, ConnectError | CapabilityError>
  /** `resources/subscribe`: updates then arrive as `notifications/resources/updated`. */
  readonly subscribeResource: (
    uri: string,
    options?: RequestOptions
  ) => Effect.Effect<void, ConnectError | CapabilityError>
  readonly unsubscribeResource: (
    uri: string,
    options?: RequestOptions
  ) => Effect.Effect<void, ConnectError | CapabilityError>
}

/**
 * Connects to the server in the current scope; closing the scope closes the connection
 * (and stops a server process).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: <R>(
  config: ServerConfig<R>,
  options: Options
) => Effect.Effect<ServerConnection, ConnectError, Scope.Scope | R> = internal.make
