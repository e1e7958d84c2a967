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
import type { Routes } from "./internal/client/routes.js"
import type {
  AmbiguousServerError,
  AmbiguousToolError,
  ConfigError,
  ConnectError,
  InputRequiredError,
  ServerNotFoundError,
  ToolNameCollisionError,
  ToolNotFoundError,
  ToolPinMismatchError,
  ValidationError
} from "./McpError.js"
import type * as McpSchema from "./McpSchema.js"
import type { ProtocolMode } from "./Protocol.js"
import type { ResultHandleNotFoundError, ResultLimits, ResultSlice } from "./ResultLimits.js"
import type { Progress } from "./RpcPeer.js"
import type { ServerConfig } from "./ServerConfig.js"
import type {
  CacheInfo as ServerConnectionCacheInfo,
  CallToolOptions,
  NotificationListener,
  Options as ServerConnectionOptions,
  Page,
  RawRequestError,
  RawRequestOptions,
  RequestOptions,
  ServerConnection,
  TaskError as ServerTaskError,
  UnsafeCallTool
} from "./ServerConnection.js"

/**
 * A tool together with the server that offers it.
 *
 * @since 0.1.0
 * @category models
 */
export type ServerTool = McpSchema.Tool & ToolOrigin

/**
 * Where a listed tool comes from: its server, and its name on that server when the client shows
 * it under another (`ServerConfig.toolPrefix`, `toolNames`, `Options.toolCollisions`; added in
 * 0.2.0). `originalName ?? name` is the name sent on the wire.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolOrigin {
  readonly server: string
  readonly originalName?: string | undefined
}

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
export interface CallOptions extends CallToolOptions {
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
  | ToolPinMismatchError
  | AmbiguousToolError
  | ToolNameCollisionError
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
export interface Options<R = never> extends ResultLimits {
  readonly servers: ReadonlyArray<ServerConfig<R>>
  /**
   * With `overflow: "handle"`, how many whole results the client keeps for `readResult` (default
   * 32; the least recently used is evicted first; all are dropped when the client closes).
   * Added in 0.2.0.
   */
  readonly maxResultHandles?: number | undefined
  /**
   * The most a tool's `_meta["anthropic/maxResultSizeChars"]` raises a configured character
   * limit to (default 500,000; 0: declarations are ignored). Added in 0.2.0.
   */
  readonly maxDeclaredResultChars?: number | undefined
  /** How the client introduces itself (default `mcp-effect` and this package's version). */
  readonly clientInfo?: McpSchema.Implementation | undefined
  /** Most pages one list call follows (default 100). */
  readonly maxPages?: number | undefined
  /**
   * Connect each server on its first use instead of at once, so that a host with many configured
   * servers starts without waiting for them (`make` then fails for none of them: a server that
   * cannot connect fails the requests sent to it). A request to every server (`listTools`, …)
   * connects the ones not yet connected, at most `maxConcurrentConnects` at a time. Added in 0.2.0.
   */
  readonly lazy?: boolean | undefined
  /**
   * How many servers connect at a time: with `lazy`, per request to every server (default 16);
   * without, while `make` connects them (default: all at once). Added in 0.2.0.
   */
  readonly maxConcurrentConnects?: number | undefined
  /** Between a server's `toolPrefix` and a tool's name, and a colliding name's server (default `__`). Added in 0.2.0. */
  readonly toolNameSeparator?: string | undefined
  /**
   * When two servers offer tools shown under the same name (after their `toolPrefix` and
   * `toolNames`): `"error"` fails listing and calls by name with `ToolNameCollisionError` naming
   * both servers; `"first"` keeps the first configured server's tool; `"prefix"` shows each of
   * the colliding tools as `server__name`. Default: both are listed and a call by that name
   * without `{ server }` fails with `AmbiguousToolError`. Added in 0.2.0.
   */
  readonly toolCollisions?: "error" | "first" | "prefix" | undefined
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
  /** Hears each drift of a pinned server's tools (`ServerConfig.pin`). Added in 0.2.0. */
  readonly onToolDrift?: ServerConnectionOptions["onToolDrift"]
}

/**
 * The options a routed call adds to the connection's: the server to send it to.
 *
 * @since 0.1.0
 * @category models
 */
export interface Selected {
  readonly server?: string | undefined
}

/**
 * The index (as a key of the tuple) of a parameter list's options: its last parameter, when that
 * is optional and an object (not an array); `never` when it has none.
 *
 * @since 0.1.0
 * @category models
 */
export type OptionsIndex<P extends ReadonlyArray<unknown>> = Required<P> extends readonly [...infer Init, infer Last]
  ? Init extends P ? Last extends ReadonlyArray<unknown> ? never : Last extends object ? `${Init["length"]}` : never
  : never
  : never

/**
 * A parameter list whose options (`OptionsIndex`) also take `O`.
 *
 * @since 0.1.0
 * @category models
 */
export type WithOptions<P extends ReadonlyArray<unknown>, O> = {
  readonly [I in keyof P]: I extends OptionsIndex<P> ? P[I] & O : P[I]
}

/**
 * What a routed method may fail with besides the connection's errors, by how its server is
 * found: by server name (`to one`, and the tagged lists and pages), by tool name (`by tool`), or
 * by task (`by task`: a bare task id with several servers and no `server` is ambiguous).
 *
 * @since 0.1.0
 * @category models
 */
export interface RoutedErrors {
  readonly tagged: ServerNotFoundError
  readonly "tagged page": ServerNotFoundError
  readonly tools: ServerNotFoundError | ToolNameCollisionError
  readonly "tools page": ServerNotFoundError | ToolNameCollisionError
  readonly "by tool": ToolNotFoundError | AmbiguousToolError | ToolNameCollisionError | ServerNotFoundError
  readonly "by task": AmbiguousServerError | ServerNotFoundError
  readonly "to one": ServerNotFoundError
}

/**
 * A routed method's result: a `tagged` list's items (and a `tagged page`'s) name their server;
 * a `tools` list's (and page's) also their `originalName` (`ToolOrigin`).
 *
 * @since 0.1.0
 * @category models
 */
export type RoutedResult<A, Kind> = Kind extends "tagged" | "tools"
  ? A extends ReadonlyArray<infer Item> ? ReadonlyArray<Item & OriginOf<Kind>> : A
  : Kind extends "tagged page" | "tools page" ? A extends Page<infer Item> ? Page<Item & OriginOf<Kind>> : A
  : A

/**
 * What a routed list adds to its items: their server, and for tools their own name (`ToolOrigin`).
 *
 * @since 0.2.0
 * @category models
 */
export type OriginOf<Kind> = Kind extends "tools" | "tools page" ? ToolOrigin : { readonly server: string }

/**
 * The client's methods derived from the connection's, one per row of the routing table: the
 * same parameters with `server` in the options (`Selected`), the same result (`RoutedResult`),
 * and the errors of finding the server (`RoutedErrors`).
 *
 * @since 0.1.0
 * @category models
 */
export type Routed<Routes> = {
  readonly [K in keyof Pick<ServerConnection, keyof Routes & keyof ServerConnection>]: ServerConnection[K] extends
    (...args: infer P) => Effect.Effect<infer A, infer E, infer R>
    ? Routes[K] extends { readonly kind: infer Kind extends keyof RoutedErrors } ? (
        ...args: WithOptions<P, Selected>
      ) => Effect.Effect<RoutedResult<A, Kind>, E | RoutedErrors[Kind], R>
    : never
    : never
}

/**
 * The client: the methods of `ServerConnection` (see `Routed`), each sent to the server it
 * concerns, and what only the client has (the servers, tool lookup, batches, streaming, roots,
 * listeners).
 *
 * Routing: `{ server }` in a call's options sends it there. Without it, lists (`listTools`, …)
 * ask every server that offers the feature and name each item's server; pages, `request`,
 * `notify`, `listen` and `cacheInfo` go to the only server; a tool call to the server that lists
 * the tool (`ToolNotFoundError`, `AmbiguousToolError`); a prompt, a completion of a prompt
 * argument or a resource to the server that lists it, else to the first one; a task operation
 * to the task handle's own server (a bare id needs `server` unless there is a single server);
 * `resumeInputRequired` to the server that sent the error, `resumeTask` to the server its saved
 * form names (`Resume`); `ping` to every server;
 * `setLogLevel` to every server that declares `logging`; `listTasks` (2025-11-25) to every
 * server that declares `tasks.list`.
 *
 * Tool names: with a server's `toolPrefix` or `toolNames`, or a `toolCollisions` policy, tools
 * are listed (and found, searched, called) under the names the client shows; a call by a shown
 * name, or by its provider-safe form (`ToolFormats.providerName`), sends the server's own name.
 * With `{ server }`, a name that is not one shown for that server is sent as it is.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service extends Routed<Routes> {
  readonly servers: ReadonlyArray<ServerConnection>
  readonly server: (name: string) => Effect.Effect<ServerConnection, ServerNotFoundError>
  readonly findTool: (
    name: string,
    options?: { readonly server?: string | undefined }
  ) => Effect.Effect<ServerTool, CallToolError>
  /**
   * The tools of every server (or `server`'s) that best match `query`, best first, at most
   * `limit` (default 10): local scoring over names, titles and descriptions, no request but the
   * (cached) tool lists. A host with hundreds of tools can hand the model a few. Added in 0.2.0.
   */
  readonly searchTools: (
    query: string,
    options?: { readonly limit?: number | undefined; readonly server?: string | undefined }
  ) => Effect.Effect<
    ReadonlyArray<ServerTool & { readonly score: number }>,
    ConnectError | ServerNotFoundError | ToolNameCollisionError
  >
  /**
   * A slice of a result kept by `overflow: "handle"` (see `ResultLimits`): from `offset`
   * (default 0), at most `length` characters (default: the rest). Added in 0.2.0.
   */
  readonly readResult: (
    handle: string,
    options?: { readonly offset?: number | undefined; readonly length?: number | undefined }
  ) => Effect.Effect<ResultSlice, ResultHandleNotFoundError>
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
