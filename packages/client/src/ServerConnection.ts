/**
 * A connection to one MCP server, whatever its era and transport: it opens the transport,
 * runs the era's opening exchange, reopens after the server died, and implements the
 * features (pagination, list caches, `_meta` lifting, progress) once for every era.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Subscribable from "effect/Subscribable"
import type { ConnectionState } from "./ConnectionState.js"
import type * as Handlers from "./Handlers.js"
import * as internal from "./internal/connection/serverConnection.js"
import type { JsonSchema } from "./JsonSchema.js"
import type {
  CapabilityError,
  ConfigError,
  ConnectError,
  InputRequiredError,
  ServerNotFoundError,
  TaskReplacedError,
  ToolNotFoundError,
  ToolPinMismatchError,
  ValidationError
} from "./McpError.js"
import type * as McpSchema from "./McpSchema.js"
import type { Negotiated, ProtocolMode } from "./Protocol.js"
import type { ResultLimits, ResultStore } from "./ResultLimits.js"
import type * as Resume from "./Resume.js"
import type { Progress } from "./RpcPeer.js"
import type { TransportKind } from "./ServerConfig.js"
import type { ServerConfig } from "./ServerConfig.js"
import type * as Subscription from "./Subscription.js"
import type * as Task from "./Task.js"
import type * as Telemetry from "./Telemetry.js"
import type { ToolDrift } from "./ToolPin.js"

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
  /**
   * Each `notifications/progress` of the call restarts its timeout, so a long job that reports
   * progress is not cut off; the call asks for progress even without `onProgress`. Bounded by
   * `maxTotalTimeout`.
   */
  readonly resetTimeoutOnProgress?: boolean | undefined
  /**
   * The most a request may take from the moment it is sent, whatever progress arrives
   * (`RequestTimeoutError` with this bound). Default with `resetTimeoutOnProgress`: ten times
   * the timeout. Each `input_required` round is a request of its own.
   */
  readonly maxTotalTimeout?: Duration.DurationInput | undefined
}

/**
 * Options of a raw `request`: the per-call options and a `Schema` the result is decoded with
 * (a result that does not fit is an `InvalidResponseError`).
 *
 * @since 0.1.0
 * @category models
 */
export interface RawRequestOptions<A = unknown, I = unknown> extends RequestOptions {
  readonly schema?: Schema.Schema<A, I> | undefined
}

/**
 * What a raw `request` can fail with: what any request can, the legacy capability gate of a
 * known method, and the `input_required` rounds the client could not finish.
 *
 * @since 0.1.0
 * @category models
 */
export type RawRequestError = ConnectError | CapabilityError | InputRequiredError

/**
 * One page of a list and the cursor of the next (`undefined` on the last page).
 *
 * @since 0.1.0
 * @category models
 */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor: string | undefined
}

/**
 * Options of `callTool`: the per-request options, and the result limits of this call (which win
 * over the server's and the client's; see `ResultLimits`).
 *
 * @since 0.2.0
 * @category models
 */
export interface CallToolOptions extends RequestOptions, ResultLimits {}

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
  /**
   * `"warn"` (default): a violation is logged; `"strict"`: it fails the call with `ValidationError`.
   * Strict fails closed: an `outputSchema` that cannot be used (an external `$ref`, a bound of
   * `JsonSchema.Limits` passed, the time budget) fails the call too (`ValidationError.unusable`
   * says why); warn logs it and returns the result unvalidated.
   */
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
  /**
   * `make` returns without connecting: the session opens with the first request (or
   * `connect`). Added in 0.2.0.
   */
  readonly lazy?: boolean | undefined
  /** Spans and metrics (default: when a tracer is installed); see `Telemetry.Options`. */
  readonly tracing?: Telemetry.Options["tracing"]
  /** W3C trace context in each request's `params._meta` while tracing (default `true`). */
  readonly propagateTraceContext?: boolean | undefined
  /** Hears each change of the connection's state as it happens, from the first `Connecting` on. */
  readonly onStateChange?: ((server: string, state: ConnectionState) => void) | undefined
  /**
   * The client's result limits (`ResultLimits`), below the server's (`ServerConfig`) and a
   * call's own. Added in 0.2.0.
   */
  readonly resultLimits?: ResultLimits | undefined
  /** Where `overflow: "handle"` keeps whole results (default: a store of the connection's own). Added in 0.2.0. */
  readonly resultStore?: ResultStore | undefined
  /**
   * The most a tool's `_meta["anthropic/maxResultSizeChars"]` raises a configured character
   * limit to (default 500,000; 0: the declaration is ignored). Added in 0.2.0.
   */
  readonly maxDeclaredResultChars?: number | undefined
  /**
   * Hears each drift of a pinned server's tools (`ServerConfig.pin`) when it is first seen,
   * besides the warning logged. Added in 0.2.0.
   */
  readonly onToolDrift?: ((drift: ToolDrift) => void) | undefined
}

/**
 * How a call made without a fiber (`UnsafeCallTool`) ended: `Done` with its `Exit` for the
 * usual outcomes (a complete, text-only result with nothing to validate, or an error), or
 * `Continue` with the effect that finishes the call the way `callTool` would (input rounds,
 * tasks, output validation, a -32020 refresh), for the caller to run.
 *
 * @since 0.2.0
 * @category models
 */
export type CallToolOutcome =
  | {
    readonly _tag: "Done"
    readonly exit: Exit.Exit<McpSchema.CallToolResult, ConnectError | InputRequiredError | ValidationError>
  }
  | {
    readonly _tag: "Continue"
    readonly effect: Effect.Effect<McpSchema.CallToolResult, ConnectError | InputRequiredError | ValidationError>
  }

/**
 * Calls a tool without an effect, where the connection can right now: an open session on a
 * transport that writes synchronously (stdio), no tracer, a fixed `requestMeta`, and no tool
 * definition left to fetch. Returns `undefined` when it cannot (call `callTool` instead), else
 * the function that abandons the call (`notifications/cancelled` is sent, `onDone` is never
 * called). `onDone` is called once, with the call's `CallToolOutcome`.
 *
 * @since 0.1.0
 * @category models
 */
export type UnsafeCallTool = (
  name: string,
  args: Record<string, unknown> | undefined,
  options: CallToolOptions | undefined,
  onDone: (outcome: CallToolOutcome) => void
) => (() => void) | undefined

/**
 * @since 0.1.0
 * @category models
 */
export interface ServerConnection {
  readonly name: string
  /** The transport kind in use (the fallback that worked, once one did). */
  readonly kind: TransportKind
  /** What the last opening exchange established; `undefined` before the first one. */
  readonly negotiated: () => Negotiated | undefined
  /** Opens the connection if it is not open (again, after the server died). */
  readonly connect: Effect.Effect<Negotiated, ConnectError>
  /**
   * The connection's state: `state.get` now, `state.changes` the current state and then each
   * change (ending after `Closed`), e.g. to drive a status display with `Stream.runForEach`.
   */
  readonly state: Subscribable.Subscribable<ConnectionState>
  /** The current state, synchronously. */
  readonly currentState: () => ConnectionState
  readonly ping: (options?: RequestOptions) => Effect.Effect<void, ConnectError>
  readonly listTools: (options?: RequestOptions) => Effect.Effect<ReadonlyArray<McpSchema.Tool>, ConnectError>
  /**
   * One page of `tools/list` from `cursor` (the first page without one), not cached; the
   * all-pages `listTools` is the cached one. A cursor the server rejects is its `ServerError`
   * (-32602).
   */
  readonly listToolsPage: (
    cursor?: string,
    options?: RequestOptions
  ) => Effect.Effect<Page<McpSchema.Tool>, ConnectError>
  /** One page of `prompts/list` (see `listToolsPage`). */
  readonly listPromptsPage: (
    cursor?: string,
    options?: RequestOptions
  ) => Effect.Effect<Page<McpSchema.Prompt>, ConnectError>
  /** One page of `resources/list` (see `listToolsPage`). */
  readonly listResourcesPage: (
    cursor?: string,
    options?: RequestOptions
  ) => Effect.Effect<Page<McpSchema.Resource>, ConnectError>
  /** One page of `resources/templates/list` (see `listToolsPage`). */
  readonly listResourceTemplatesPage: (
    cursor?: string,
    options?: RequestOptions
  ) => Effect.Effect<Page<McpSchema.ResourceTemplate>, ConnectError>
  /**
   * Any request by method name, e.g. a vendor extension's, through the same path as the
   * wrapped methods: the 2026-07-28 `_meta` and headers, the capability gate of a method the
   * client knows, the `input_required` rounds, timeouts, progress and cancellation. The result
   * is returned as the server sent it, or decoded with `options.schema`. It bypasses the
   * result cache.
   */
  readonly request: <A = unknown, I = unknown>(
    method: string,
    params?: Record<string, unknown>,
    options?: RawRequestOptions<A, I>
  ) => Effect.Effect<A, RawRequestError>
  /** Sends a notification by method name (with the 2026-07-28 headers on HTTP). */
  readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void, ConnectError>
  readonly callTool: (
    name: string,
    args?: Record<string, unknown>,
    options?: CallToolOptions
  ) => Effect.Effect<
    McpSchema.CallToolResult,
    ConnectError | InputRequiredError | ValidationError | ToolNotFoundError | ToolPinMismatchError
  >
  /**
   * `callTool` for callers outside Effect that must not pay for a fiber per call (the Promise
   * facade): see `UnsafeCallTool`. Optional: a connection whose request path never offers a
   * call without a fiber (a tracer, HTTP, a `requestMeta` effect) has none; call `callTool`.
   */
  readonly unsafeCallTool?: UnsafeCallTool | undefined
  /**
   * Starts a tool as a task and returns its handle at once (2025-11-25: task-augmented, with
   * `ttl`, needs `tasks.requests.tools.call`; 2026-07-28: needs the tasks extension declared,
   * `ttl` is ignored, and a server that answers with the result yields a completed handle).
   */
  readonly callToolAsTask: (
    name: string,
    args?: Record<string, unknown>,
    options?: TaskCallOptions
  ) => Effect.Effect<
    Task.Task,
    ConnectError | CapabilityError | InputRequiredError | ValidationError | ToolNotFoundError | ToolPinMismatchError
  >
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
  /**
   * Re-attaches to a task another client (or an earlier process) started, from its saved form
   * (`Resume.fromTask`) or its handle: waits as `waitForTask` does (input requests answered
   * through the handlers, `timeout` bounding the whole wait), then answers like `callTool` — the
   * result, validated against the saved tool definition; a failed or cancelled task is a
   * `ServerError` carrying `taskId` and status, a task the server no longer knows is the
   * server's error (`-32602` by the tasks extension). Added in 0.2.0.
   */
  readonly resumeTask: (
    saved: Resume.SavedTask | Task.Task,
    options?: { readonly timeout?: Duration.DurationInput | undefined }
  ) => Effect.Effect<McpSchema.CallToolResult, TaskError | InputRequiredError | ValidationError>
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
   * What the cache holds for a list, a read or the 2026-07-28 discovery: its `ttlMs` (absent:
   * kept until a change notification), `cacheScope`, when it arrived and whether it is still
   * fresh (rules: `docs/caching.md`).
   */
  readonly cacheInfo: (
    kind: "tools" | "prompts" | "resources" | "resourceTemplates" | "read" | "discover",
    uri?: string
  ) => Effect.Effect<CacheInfo | undefined>
  /**
   * Drops every cached result of this connection (lists, reads, the discovery): the next call
   * asks the server.
   */
  readonly clearCache: Effect.Effect<void>
  /**
   * Subscribes (2026-07-28) in the current scope and waits for the acknowledgement (bounded by
   * `ackTimeout`, default the read timeout; `false` waits for ever). Every subscription of the
   * connection, resource watches included, shares one `subscriptions/listen` stream carrying the
   * union of their filters; one that needs more re-opens it (the old stream delivers until the new
   * one is acknowledged). Over HTTP, a stream past the origin's `maxStreamsPerOrigin` fails with
   * `ConnectionError` (`reason: "stream-limit"`).
   */
  readonly listen: (
    filter: Subscription.Filter,
    options?: { readonly ackTimeout?: Duration.DurationInput | false | undefined }
  ) => Effect.Effect<Subscription.Subscription, ConnectError | CapabilityError, Scope.Scope>
  /**
   * Replaces the roots this connection offers. Without roots so far, this declares the roots
   * capability: at once on 2026-07-28 (the capabilities ride on every request), and on a legacy
   * session by re-initializing it on its next use (`initialize` fixes the capabilities; requests
   * in flight on the old session fail). With roots declared, a legacy session is told
   * (`notifications/roots/list_changed`).
   */
  readonly setRoots: (roots: ReadonlyArray<Handlers.Root>) => Effect.Effect<void>
  /** The roots currently offered (`[]` while none are declared). */
  readonly roots: () => ReadonlyArray<Handlers.Root>
  /**
   * Tells a legacy session that declared roots that they changed
   * (`notifications/roots/list_changed`); nothing on 2026-07-28 or plain HTTP.
   */
  readonly notifyRootsChanged: Effect.Effect<void>
  /**
   * Continues an `input_required` request the client stopped, from the error or its saved form
   * (`Resume.fromInputRequired`, possibly in another process): the original request is sent
   * again with a new id, the answers and the `requestState` echoed exactly. Without
   * `inputResponses` (added in 0.2.0) the pending input requests are put to the handlers first.
   * Later rounds go on as usual. Resolves with the raw result.
   */
  readonly resumeInputRequired: (
    error: InputRequiredError | Resume.SavedInputRequired,
    inputResponses?: Record<string, unknown>
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
 * (and stops a server process). A configuration with a `configError` fails with it at once.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: <R>(
  config: ServerConfig<R>,
  options: Options
) => Effect.Effect<ServerConnection, ConnectError | ConfigError, Scope.Scope | R> = internal.make
