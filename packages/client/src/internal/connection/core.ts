/**
 * What every part of a `ServerConnection` may use, and nothing more: the connection's settings
 * and shared state (`Shared`), its session (`SessionAccess`, from `session.ts`) and the one way to
 * send (`RequestPath`, from `requests.ts`, of steps in `../request/`). The parts (`lists.ts`, `tools.ts`,
 * `subscriptions.ts`, …) each take the `Core` and return their slice of the connection; each
 * names what it uses of it (its `Needs`, a `Pick` of `Core`), so what a part may touch is in its
 * signature. `serverConnection.ts` only wires them.
 *
 * @internal
 */
import type * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { CacheStore } from "../../CacheStore.js"
import * as Handlers from "../../Handlers.js"
import type { CapabilityError, ConnectError, InputRequiredError, RequestError } from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as Protocol from "../../Protocol.js"
import type * as RpcPeer from "../../RpcPeer.js"
import type { TransportKind } from "../../ServerConfig.js"
import type { ServerConfig } from "../../ServerConfig.js"
import type { Options } from "../../ServerConnection.js"
import type { ToolPin } from "../../ToolPin.js"
import * as Defaults from "../defaults.js"
import * as Extensions from "../extensions.js"
import * as Limits from "../limits.js"
import type { Send } from "../request/send.js"
import * as ResultLimits from "../resultLimits.js"
import * as ToolFilter from "../toolFilter.js"
import * as Tracing from "../tracing.js"
import * as ResultCache from "./resultCache.js"
import * as SharedResults from "./sharedResults.js"
import * as State from "./state.js"

/** One opened session: its scope (closed on reopen), its peer and what its opening exchange established. */
export interface Session {
  readonly scope: Scope.CloseableScope
  readonly peer: RpcPeer.RpcPeer
  readonly negotiated: Protocol.Negotiated
  /** Its telemetry attributes (transport, version, session id), when the connection traces. */
  readonly attributes: Record<string, unknown> | undefined
}

/** The session part's own state, which its pieces (choice, discovery, supervisor) read and set. */
export interface Current {
  /** The session requests use, open or not. */
  session: Session | undefined
  /** Set to have the next use open a new session (re-initialize to declare roots; a new era). */
  stale: boolean
  /** The host closed the connection (its scope is closing). */
  closed: boolean
}

/** @internal */
export type Params = Record<string, unknown> | undefined

/** An open `subscriptions/listen` request, as the router sees it (keyed by its request id). */
export interface Listen {
  readonly acknowledge: (granted: Record<string, unknown>) => void
  readonly end: () => void
  /** Hands a notification of the stream to the subscriptions it concerns. */
  readonly offer: (method: string, params: Params) => void
}

/** The connection's settings and the state its parts share. */
export interface Shared {
  readonly server: string
  readonly options: Options
  readonly defaultTimeoutMs: number
  readonly maxPages: number
  readonly tasksDeclared: boolean
  /** The server's tool filter (`ServerConfig.tools`); `undefined`: every tool. */
  readonly toolAllowed: ((name: string) => boolean) | undefined
  /** The result limits of the server's calls (`ServerConfig`'s fields over the client's), before a call's own. */
  readonly resultLimits: ResultLimits.Limits | undefined
  /** Where `overflow: "handle"` keeps whole results. */
  readonly resultStore: ResultLimits.Store
  /** The server's drift pin (`ServerConfig.pin`); `undefined`: none. */
  readonly toolPin: ToolPin | undefined
  readonly identity: Protocol.ClientIdentity
  /** The host's `_meta` when it is a fixed value (no effect per request); else `undefined`. */
  readonly fixedHostMeta: Record<string, unknown> | undefined
  /** The host's `_meta` of a 2026-07-28 request. */
  readonly hostMeta: Effect.Effect<Record<string, unknown>>
  /** The 2026-07-28 log level: it rides on every request's `_meta` (set by `setLogLevel`). */
  readonly logLevel: { current: McpSchema.LoggingLevel | undefined }
  readonly clock: Clock.Clock
  /** The one result cache of the connection: lists and reads. */
  readonly cache: ResultCache.ResultCache
  /** The results shared with other connections through the host's `CacheStore`, if it gave one. */
  readonly shared: SharedResults.SharedResults | undefined
  /** The open listen requests by id: the subscriptions register them, the router reads them. */
  readonly listens: Map<number, Listen>
  /** Spans and metrics, decided once per connection (`tracing.ts`); `undefined`: none. */
  readonly tracing: Tracing.Tracing | undefined
  /** Whether each request is logged at DEBUG (`request/debugLog.ts`), decided once per connection. */
  readonly debugRequests: boolean
  /** The connection's state, set by the session part. */
  readonly state: State.State
  /**
   * The handlers as every part reads them (`options.handlers` is this object); `setRoots`
   * replaces `roots` (`undefined` while none are declared).
   */
  readonly handlers: { -readonly [K in keyof Handlers.Handlers]: Handlers.Handlers[K] }
  /** Recomputes `identity`'s capabilities from the handlers (after `setRoots` declared roots). */
  readonly redeclare: () => void
}

/** The session part (`session.ts`). */
export interface SessionAccess {
  /** The open session, opening (or reopening, under the lock) one when there is none. */
  readonly session: Effect.Effect<Session, ConnectError>
  /** `session` with its 2026-07-28 discovery re-fetched once its `ttlMs` lapsed: for capability checks. */
  readonly discovered: Effect.Effect<Session, ConnectError>
  /** Makes the next use open a new session (a legacy one must re-initialize to declare a capability). */
  readonly reopenOnNextUse: () => void
  /** The current session, open or not, without opening one. */
  readonly currentSession: () => Session | undefined
  /** The transport kind in use (the fallback that worked, once one did). */
  readonly kind: () => TransportKind
  readonly isHttp: () => boolean
  /** Whether the host closed the connection (its scope is closing). */
  readonly isClosed: () => boolean
  /** The connection's scope: for resources that outlive one call (resource watches). */
  readonly scope: Scope.Scope
}

/**
 * The request path (`requests.ts`): senders of one type (`../request/send.ts`), composed once
 * per connection from the steps that apply to it.
 */
export interface RequestPath {
  /**
   * One request on the current session (opened when none is). On 2026-07-28 it carries the
   * per-request `_meta` and headers, the era's errors are typed, and a broken response stream
   * is re-issued once.
   */
  readonly send: Send
  /** `send` with the `input_required` rounds driven to their end (DIGEST §5). */
  readonly withInput: Send<InputRequiredError>
  /** `send` after the capability gate of the request's method. */
  readonly gated: Send<CapabilityError>
  /** The result when its `resultType` is complete, else an invalid result. */
  readonly requireComplete: (method: string, result: unknown) => Effect.Effect<unknown, RequestError>
}

/** @internal */
export interface Core extends Shared, SessionAccess, RequestPath {}

/** The settings read from the config and the options, and the empty shared state. @internal */
export const makeShared = <R>(config: ServerConfig<R>, options: Options): Effect.Effect<Shared> =>
  // What it reads of the fiber, read in one step (an `Effect.all` of them was some 25 run-loop
  // steps per connection).
  Effect.flatMap(Tracing.make(config.name, options, config.propagateTraceContext), (tracing) =>
    Effect.clockWith((clock) =>
      Effect.withFiberRuntime((fiber) => {
        const minimumLogLevel = fiber.getFiberRef(FiberRef.currentMinimumLogLevel)
        const cacheStore = Context.getOption(fiber.currentContext, CacheStore)
        const state = State.unsafeMake(
          options.onStateChange && ((state) =>
            options.onStateChange?.(config.name, state))
        )
        return Effect.succeed(shared(config, options, clock, tracing, minimumLogLevel, state, cacheStore))
      })
    ))

const shared = <R>(
  config: ServerConfig<R>,
  options: Options,
  clock: Clock.Clock,
  tracing: Tracing.Tracing | undefined,
  minimumLogLevel: LogLevel.LogLevel,
  state: State.State,
  cacheStore: Option.Option<CacheStore["Type"]>
): Shared => {
  // A data property `setRoots` replaces, not a getter: a literal with a getter (and spreads)
  // gets a hidden class of its own, or a dictionary, per connection.
  const handlers: Shared["handlers"] = Object.assign({}, options.handlers)
  const declared = options.extensions ?? []
  const extensions = declared.length === 0
    ? {}
    : { extensions: Object.fromEntries(declared.map((id) => [id, {}])) }
  // A fixed value needs no effect per request.
  const fixedHostMeta: Record<string, unknown> | undefined = options.requestMeta === undefined
    ? {}
    : Effect.isEffect(options.requestMeta)
    ? undefined
    : options.requestMeta
  const identity: { -readonly [K in keyof Protocol.ClientIdentity]: Protocol.ClientIdentity[K] } = {
    clientInfo: options.clientInfo,
    capabilities: {},
    legacyCapabilities: {}
  }
  const redeclare = () => {
    identity.capabilities = Object.assign(Handlers.capabilities(handlers, "modern"), extensions)
    identity.legacyCapabilities = Handlers.capabilities(handlers, "legacy")
  }
  redeclare()
  return {
    server: config.name,
    options: Object.assign({}, options, { handlers }),
    defaultTimeoutMs: config.readTimeout === undefined
      ? Defaults.REQUEST_TIMEOUT_MS
      : Duration.toMillis(Duration.decode(config.readTimeout)),
    maxPages: options.maxPages ?? Limits.MAX_PAGES,
    tasksDeclared: declared.includes(Extensions.TASKS),
    toolAllowed: ToolFilter.compile(config.tools),
    resultLimits: ResultLimits.configured(config, options.resultLimits),
    resultStore: options.resultStore ?? ResultLimits.makeStore(),
    toolPin: config.pin,
    identity,
    fixedHostMeta,
    hostMeta: fixedHostMeta === undefined
      ? options.requestMeta as Effect.Effect<Record<string, unknown>>
      : Effect.succeed(fixedHostMeta),
    logLevel: { current: undefined },
    clock,
    cache: ResultCache.make(),
    // Shared under what names the server wherever it runs (its URL, its command line).
    shared: Option.isSome(cacheStore)
      ? SharedResults.make(cacheStore.value, config.eraCacheKey ?? `name ${config.name}`)
      : undefined,
    listens: new Map(),
    tracing,
    debugRequests: LogLevel.lessThanEqual(minimumLogLevel, LogLevel.Debug),
    state,
    handlers,
    redeclare
  }
}
