/**
 * The Promise facade's platform-agnostic types: the options every platform's `connect` shares,
 * its listeners and handles, and its client, whose methods are the `McpClient` service's as
 * Promise-returning ones (`Promised`). The Node and browser facades re-export them.
 *
 * @internal
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type { ConnectionState } from "../../ConnectionState.js"
import type * as ConnectionStateModule from "../../ConnectionState.js"
import type * as Handlers from "../../Handlers.js"
import type * as McpClient from "../../McpClient.js"
import type * as McpSchema from "../../McpSchema.js"
import type { Negotiated, ProtocolMode } from "../../Protocol.js"
import type * as ResultLimits from "../../ResultLimits.js"
import type * as ServerConfig from "../../ServerConfig.js"
import type { NotificationListener } from "../../ServerConnection.js"
import type * as ServerConnectionModule from "../../ServerConnection.js"
import type * as Subscription from "../../Subscription.js"
import type * as Target from "../../Target.js"
import type * as ToolFormats from "../../ToolFormats.js"
import type * as ToolPin from "../../ToolPin.js"

/**
 * The options every platform's `connect` takes (the Node facade adds its own: network,
 * processes, files, OAuth).
 *
 * @since 0.1.0
 * @category models
 */
export interface FacadeOptions extends Omit<Target.TargetOptions, "name">, ResultLimits.ResultLimits {
  /**
   * With `overflow: "handle"`, how many whole results are kept for `readResult` (default 32;
   * `McpClient.Options.maxResultHandles`). Added in 0.2.0.
   */
  readonly maxResultHandles?: number | undefined
  /** The most a tool's `_meta["anthropic/maxResultSizeChars"]` raises a limit to (default 500,000). Added in 0.2.0. */
  readonly maxDeclaredResultChars?: number | undefined
  readonly readTimeout?: Duration.DurationInput | undefined
  /**
   * Which tools the client shows and calls, for every target: `include` / `exclude` lists of
   * names with `*` globs (`ServerConfig.tools`). Added in 0.2.0.
   */
  readonly tools?: ServerConfig.ToolFilter | undefined
  /** Hears each drift of a pinned server's tools (besides the warning logged). Added in 0.2.0. */
  readonly onToolDrift?: ((drift: ToolPin.ToolDrift) => void) | undefined
  /**
   * Shows every target's tools under a prefix (`true`: its server's name), as
   * `prefix__name` (`ServerConfig.toolPrefix`). Added in 0.2.0.
   */
  readonly toolPrefix?: string | true | undefined
  /** Renames tools, for every target: a tool's own name → the name shown (`ServerConfig.toolNames`). Added in 0.2.0. */
  readonly toolNames?: Readonly<Record<string, string>> | undefined
  /** Between a prefix and a tool's name (default `__`; `McpClient.Options.toolNameSeparator`). Added in 0.2.0. */
  readonly toolNameSeparator?: string | undefined
  /**
   * Two servers' tools shown under one name: `"error"`, `"first"` or `"prefix"`
   * (`McpClient.Options.toolCollisions`). Added in 0.2.0.
   */
  readonly toolCollisions?: "error" | "first" | "prefix" | undefined
  readonly clientInfo?: McpSchema.Implementation | undefined
  /**
   * Connect each server on its first use (`McpClient.Options.lazy`): `connect` returns at once,
   * a server that cannot connect fails the calls sent to it. Added in 0.2.0.
   */
  readonly lazy?: boolean | undefined
  /**
   * How many servers connect at a time: with `lazy`, per call to every server (default 16);
   * without, while `connect` connects them (default: all at once).
   */
  readonly maxConcurrentConnects?: number | undefined
  /** Forces a transport instead of detecting one from the target. */
  readonly transport?: Target.TargetOptions["transport"]
  /**
   * Server name (single target only; in a list, give `{ name, target }`); defaults to
   * `Target.defaultName`: what the command runs (`server-everything` for
   * `npx -y @modelcontextprotocol/server-everything`), or the URL's host.
   */
  readonly name?: string | undefined
  /** `auto` (default) probes with `server/discover`, falling back to `initialize`. */
  readonly protocol?: ProtocolMode | undefined
  /** Bound on the `server/discover` probe (default 5 seconds). */
  readonly discoverTimeout?: Duration.DurationInput | undefined
  /** Host `_meta` merged into every 2026-07-28 request (a value or a function called per request). */
  readonly requestMeta?: Record<string, unknown> | (() => Record<string, unknown>) | undefined
  /**
   * Answers `elicitation/create`: return `{ action, content? }`, the content alone for a form
   * (sent as accept), or `true` to accept a URL (sync or async).
   */
  readonly elicitationHandler?:
    | ((
      params: Handlers.ElicitRequestParams
    ) =>
      | Handlers.ElicitResult
      | ElicitContent
      | true
      | Promise<Handlers.ElicitResult | ElicitContent | true>)
    | undefined
  /** Which elicitation modes the handler supports (default: form only). */
  readonly elicitationModes?: ReadonlyArray<"form" | "url"> | undefined
  /** Answers `sampling/createMessage` with a `CreateMessageResult` (sync or async). */
  readonly samplingHandler?:
    | ((
      params: Handlers.CreateMessageRequestParams
    ) => Handlers.CreateMessageResult | Promise<Handlers.CreateMessageResult>)
    | undefined
  /** The sampling handler accepts tool-enabled requests (declares `sampling.tools`). */
  readonly samplingSupportsTools?: boolean | undefined
  /**
   * The roots to offer servers: a list, or a function read at every `roots/list`. Without it,
   * `setRoots` declares roots later.
   */
  readonly roots?: ReadonlyArray<Handlers.Root> | (() => ReadonlyArray<Handlers.Root>) | undefined
  /**
   * Receives the client's log lines at `logLevel` and above (default: the console). Server text
   * in them is already escaped.
   */
  readonly logger?: Logger | undefined
  /** A notification listener registered before connecting (sees the very first notifications). */
  readonly onNotification?: NotificationListener | undefined
  /** A state listener registered before connecting (sees each server's first `Connecting`). */
  readonly onStateChange?: StateListener | undefined
  /**
   * Supervised reconnect of every server: re-open in the background after a server died
   * (see `ServerConfig.reconnect`), instead of on the next call.
   */
  readonly reconnect?: ConnectionStateModule.Reconnect | undefined
  /** Extensions to declare, e.g. `["io.modelcontextprotocol/tasks"]`. */
  readonly extensions?: ReadonlyArray<string> | undefined
  /** Output validation: `"warn"` (default) logs a violation, `"strict"` fails with `ValidationError`. */
  readonly validateStructuredContent?: "warn" | "strict" | undefined
  /** Least severe level logged (default `Warning`). */
  readonly logLevel?: "All" | "Debug" | "Info" | "Warning" | "Error" | "None" | undefined
}

/**
 * Hears a server's state changes (`Connecting`, `Ready`, `Reconnecting`, `Failed`, `Closed`).
 *
 * @since 0.1.0
 * @category models
 */
export type StateListener = (server: string, state: ConnectionState) => void

/**
 * Where the facade's log lines go (`console` has this shape).
 *
 * @since 0.1.0
 * @category models
 */
export interface Logger {
  readonly debug: (message: string) => void
  readonly info: (message: string) => void
  readonly warn: (message: string) => void
  readonly error: (message: string) => void
}

// The content alone, `undefined` values allowed: under plain `strict`, a handler returning
// `{ action: "decline" }` or `{ name }` infers `{ name: string; action?: undefined }` for the latter.
type ElicitContent = Readonly<Record<string, string | number | boolean | ReadonlyArray<string> | undefined>>

/**
 * What every facade method's options may add: aborting the signal interrupts the call, which
 * cancels it on the wire (`notifications/cancelled`), and rejects with the signal's reason.
 *
 * @since 0.1.0
 * @category models
 */
export interface Signal {
  readonly signal?: AbortSignal | undefined
}

/**
 * A connected server as the facade shows it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerHandle {
  readonly name: string
  readonly kind: ServerConfig.TransportKind
  readonly era: Negotiated["era"] | undefined
  readonly protocolVersion: string | undefined
  readonly serverInfo: McpSchema.Implementation | undefined
  readonly instructions: string | undefined
  readonly capabilities: McpSchema.ServerCapabilities | undefined
  /** True when the server speaks 2026-07-28. */
  readonly isModern: boolean
}

/**
 * An open subscription, as the facade shows it.
 *
 * @since 0.1.0
 * @category models
 */
export interface SubscriptionHandle {
  readonly acknowledged: Subscription.Filter
  readonly unsupported: ReadonlyArray<string>
  readonly isActive: () => boolean
  readonly pendingNotifications: () => number
  readonly droppedNotifications: () => number
  /** Resolves when the subscription ends: gracefully, or rejects with its error. */
  readonly done: Promise<void>
  readonly close: () => Promise<void>
}

/**
 * A parameter list whose options (`McpClient.OptionsIndex`: the last parameter, when optional and
 * an object) also take a `signal`.
 *
 * @since 0.1.0
 * @category models
 */
export type WithSignal<P extends ReadonlyArray<unknown>> = McpClient.WithOptions<P, Signal>

/**
 * An Effect service's methods as Promise-returning ones: a method returning an `Effect` returns
 * a Promise of its success (rejected with its error) and takes a `signal` in its options (see
 * `WithSignal`); every other member is left as it is.
 *
 * @since 0.1.0
 * @category models
 */
export type Promised<S> = {
  readonly [K in keyof S]: S[K] extends (...args: infer P) => Effect.Effect<infer A, infer _E, infer _R>
    ? (...args: WithSignal<P>) => Promise<A>
    : S[K]
}

/**
 * The `McpClient` service's members the facade does not offer: the connections (the facade
 * shows `ServerHandle`s) and the fiber-free tool call (its own `callTool` uses it).
 *
 * @since 0.1.0
 * @category models
 */
export type Hidden = "servers" | "server" | "unsafeCallTool"

/**
 * The `McpClient` service's members the facade gives a shape of its own.
 *
 * @since 0.1.0
 * @category models
 */
export type Reshaped = "request" | "callToolStreaming" | "listen" | "onNotification"

/**
 * The facade's client: every method of the `McpClient` service (`McpClient.Service`) as a
 * Promise-returning one that takes a `signal` in its options (`Promised`), and what only the
 * facade has: server handles, listeners, the tool formats, `state` and `close`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Client extends Promised<Omit<McpClient.Service, Hidden | Reshaped>> {
  readonly servers: ReadonlyArray<ServerHandle>
  /**
   * A request by method name (e.g. a vendor extension's) to `{ server }` or the only server,
   * through the same path as the wrapped methods; `schema` (an Effect `Schema`) decodes the result.
   */
  readonly request: <A = unknown, I = unknown>(
    method: string,
    params?: Record<string, unknown>,
    options?: ServerConnectionModule.RawRequestOptions<A, I> & { readonly server?: string } & Signal
  ) => Promise<A>
  /**
   * Opens a `subscriptions/listen` stream (2026-07-28). The listener runs on the subscription's
   * own fiber, never on the transport's reader, so it may make requests.
   */
  readonly listen: (
    filter: Subscription.Filter,
    listener: (notification: Subscription.Notification) => void,
    options?: { readonly server?: string; readonly ackTimeout?: Duration.DurationInput | false } & Signal
  ) => Promise<SubscriptionHandle>
  /** A tool call as an async iterable: progress chunks, then the result (see `McpClient.callToolStreaming`). */
  readonly callToolStreaming: (
    name: string,
    args?: Record<string, unknown>,
    options?: McpClient.CallOptions & Signal
  ) => AsyncIterable<McpClient.ToolChunk>
  /** Every tool, as OpenAI chat-completions `tools`. */
  readonly toOpenAITools: (options?: McpClient.ListOptions & Signal) => Promise<Array<ToolFormats.OpenAITool>>
  /** Every tool, as Anthropic messages `tools`. */
  readonly toAnthropicTools: (options?: McpClient.ListOptions & Signal) => Promise<Array<ToolFormats.AnthropicTool>>
  /** Every tool, as Gemini `functionDeclarations`. */
  readonly toGoogleTools: (
    options?: McpClient.ListOptions & Signal
  ) => Promise<Array<ToolFormats.GoogleFunctionDeclaration>>
  /** Adds a notification listener; returns a function that removes it. */
  readonly onNotification: (listener: NotificationListener) => () => void
  /** Adds a listener of every server's state changes; returns a function that removes it. */
  readonly onStateChange: (listener: StateListener) => () => void
  /** The current state of `server` (or of the only server); throws `ServerNotFoundError`. */
  readonly state: (server?: string) => ConnectionState
  /** Closes every connection (and stops server processes); a `fromRuntime` client removes its listeners only. */
  readonly close: () => Promise<void>
  /** `close`, for `await using client = await connect(...)`. */
  readonly [Symbol.asyncDispose]: () => Promise<void>
}
