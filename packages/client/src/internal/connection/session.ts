/**
 * The session of a connection, and only that: opening it with the era's exchange (trying the
 * config's fallbacks in order), reopening it under a lock after the server died, the keep-alive
 * ping, and closing.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import { ConnectionState, toSchedule } from "../../ConnectionState.js"
import * as Deprecations from "../../Deprecations.js"
import { EraCache } from "../../EraCache.js"
import type { ConnectError } from "../../McpError.js"
import { ConnectionError } from "../../McpError.js"
import * as Protocol from "../../Protocol.js"
import * as RpcPeer from "../../RpcPeer.js"
import type { ServerConfig } from "../../ServerConfig.js"
import type { Transport } from "../../Transport.js"
import * as Limits from "../limits.js"
import type { Session, Sessions, Shared } from "./core.js"
import * as RememberedEra from "./rememberedEra.js"
import * as ResultCache from "./resultCache.js"
import type { Router } from "./router.js"
import * as Tracing from "./tracing.js"

const DEFAULT_DISCOVER_TIMEOUT_MS = 5_000

/** The discovery is public: one per connection, whatever the credential. */
const DISCOVERY_CONTEXT: ResultCache.CacheContext = { meta: "", authorization: undefined }

/** The keep-alive request of the era: `ping`, or a `server/discover` on 2026-07-28. @internal */
export const pingWith = (identity: Shared["identity"], peer: RpcPeer.RpcPeer, negotiated: Protocol.Negotiated) =>
  negotiated.era === "legacy"
    ? peer.request("ping", undefined)
    : peer.request("server/discover", {
      _meta: Protocol.requestMeta(identity, negotiated.protocolVersion)
    }, { hints: { modern: true, headers: Protocol.modernHeaders("server/discover", negotiated.protocolVersion) } })

/** What the session uses of the core. @internal */
export type Needs = Pick<
  Shared,
  "server" | "options" | "defaultTimeoutMs" | "identity" | "cache" | "tracing" | "state"
>

/** @internal */
export const make = <R>(
  config: ServerConfig<R>,
  core: Needs,
  router: Router
): Effect.Effect<Sessions, never, Scope.Scope | R> =>
  Effect.gen(function*() {
    const { cache, defaultTimeoutMs, identity, options, server, state, tracing } = core
    const context = yield* Effect.context<R>()
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const parentScope = yield* Effect.scope
    const discoverTimeoutMs = Duration.toMillis(
      Duration.decode(config.discoverTimeout ?? options.discoverTimeout ?? DEFAULT_DISCOVER_TIMEOUT_MS)
    )
    const mode: Protocol.ProtocolMode = config.protocol ?? options.protocol ?? "auto"
    // The host's era memory, when it gave one and the config names the server.
    const eraKey = config.eraCacheKey
    const eraCache = mode === "auto" && eraKey !== undefined
      ? Option.getOrUndefined(yield* Effect.serviceOption(EraCache))
      : undefined

    let live: Session | undefined
    // Set to have the next use open a new session (re-initialize to declare roots; a new era).
    let stale = false
    // Sessions live in a scope of their own, closed after `closed` is set: what fails because the
    // host closed the connection (a listen stream, say) sees that it was closed, not that it crashed.
    const sessionsScope = yield* Scope.fork(parentScope, ExecutionStrategy.sequential)
    let closed = false
    yield* Effect.addFinalizer(() =>
      Effect.zipRight(Effect.sync(() => (closed = true)), state.set(ConnectionState.Closed()))
    )
    const lock = yield* Effect.makeSemaphore(1)
    const candidates = [{ kind: config.kind, transport: config.transport }, ...(config.fallbacks ?? [])]
    // Once a candidate worked (auto-detection), reopening uses it alone.
    let chosen: number | undefined
    let kind = config.kind
    // The era is remembered for the life of the connection; a reopen after a failure probes again.
    const openWith = (candidate: number) =>
      Effect.gen(function*() {
        const scope = yield* Scope.fork(sessionsScope, ExecutionStrategy.sequential)
        return yield* Effect.gen(function*() {
          const { kind: candidateKind, transport: factory } = candidates[candidate]!
          // The transport itself, for the telemetry attributes (address, session id) and a handshake's failure.
          let transport: Transport | undefined
          // Set once the session is open: the peer calls back when it closes (no fiber waits).
          let onDied: ((error: ConnectionError) => void) | undefined = undefined
          const peer = yield* RpcPeer.make({
            server,
            transport: (sink, name) =>
              Effect.tap(factory(sink, name), (opened) => Effect.sync(() => (transport = opened))),
            defaultTimeoutMs,
            onNotification: router.onNotification,
            onRequest: router.onRequest,
            onClose: (error) => onDied?.(error)
          })
          const detectWith = tracing === undefined
            ? peer
            : Tracing.tracedPeer(tracing, peer, () => Tracing.transportAttributes(candidateKind, transport))
          const detect = (remembered: "modern" | "legacy" | undefined) =>
            Protocol.detect(server, detectWith, identity, {
              mode: candidateKind === "sse" ? "legacy" : mode,
              discoverTimeoutMs,
              timeoutMs: defaultTimeoutMs,
              remembered
            })
          const negotiated = yield* (eraCache === undefined || eraKey === undefined || candidateKind === "sse"
            ? detect(undefined)
            : RememberedEra.detect(server, eraCache, eraKey, detect)).pipe(
              Effect.catchIf(
                (error) => error._tag !== "ConnectionError",
                (error) => Effect.fail(transport?.unanswered?.(error) ?? error)
              )
            )
          if (config.keepAlive !== undefined) {
            yield* pingWith(identity, peer, negotiated).pipe(
              Effect.catchAll((error) => Effect.logDebug(`${server}: keep-alive ping failed: ${error.message}`)),
              Effect.repeat(Schedule.spaced(config.keepAlive)),
              Effect.forkScoped
            )
          }
          const opened: Session = {
            scope,
            peer,
            negotiated,
            attributes: tracing === undefined
              ? undefined
              : Tracing.sessionAttributes(candidateKind, transport, negotiated)
          }
          const died = yield* watch(opened)
          // Handled on the scheduler, as the fiber that used to wait for the close did.
          onDied = (error) => runFork(died(error), { immediate: false })
          // Closed before the callback was set: its end is handled all the same.
          if (!peer.isOpen()) runFork(Effect.flatMap(peer.closed, died), { immediate: false })
          return opened
        }).pipe(
          Scope.extend(scope),
          Effect.provide(context),
          Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
        )
      })

    const openSession = Effect.gen(function*() {
      if (closed) return yield* new ConnectionError({ server, message: "the connection is closed", reason: "closed" })
      if (live !== undefined) {
        // No longer live before its scope closes: its peer's close is no death.
        const old = live
        live = undefined
        yield* Scope.close(old.scope, Exit.void)
        cache.clear()
      }
      const order = chosen !== undefined ? [chosen] : candidates.map((_, i) => i)
      let opened: Session | undefined
      for (let i = 0; opened === undefined; i++) {
        const candidate = order[i]!
        const last = i === order.length - 1
        const attempt = openWith(candidate)
        // A server that answered with a revision we cannot speak is not a transport mismatch.
        opened = last ? yield* attempt : yield* attempt.pipe(
          Effect.catchIf(
            (error) => error._tag !== "UnsupportedProtocolVersionError",
            (error) =>
              Effect.as(
                Effect.logDebug(
                  `${server}: ${candidates[candidate]!.kind} did not work (${error._tag}); trying ${
                    candidates[order[i + 1]!]!.kind
                  }`
                ),
                undefined
              )
          )
        )
        if (opened !== undefined) {
          chosen = candidate
          kind = candidates[candidate]!.kind
        }
      }
      live = opened
      stale = false
      if (opened.negotiated.era === "modern") {
        yield* remember(opened.negotiated)
        yield* Deprecations.warnConfigured(options)
      }
      return opened
    })

    // The discovery is a cached result like any other (DIGEST §7): fresh for its ttlMs, then
    // re-fetched before the next capability check — at most once a minute, since a TTL is not a
    // polling interval and a `ttlMs: 0` would otherwise double every request; a server that stopped offering 2026-07-28 is
    // detected afresh, new capabilities replace the old ones.
    let discoveredAt = 0
    const remember = (negotiated: Protocol.Negotiated) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        discoveredAt = now
        return cache.set(
          ResultCache.DISCOVER_KEY,
          negotiated,
          { ttlMs: negotiated.ttlMs ?? 0, scope: "public" },
          DISCOVERY_CONTEXT,
          now
        )
      })
    const rediscover = (s: Session): Effect.Effect<Session, ConnectError> =>
      Protocol.detect(server, s.peer, identity, { mode: "modern", discoverTimeoutMs, timeoutMs: defaultTimeoutMs })
        .pipe(
          Effect.matchEffect({
            onSuccess: (negotiated) => Effect.as(remember(negotiated), live === s ? (live = { ...s, negotiated }) : s),
            onFailure: (error) =>
              error._tag === "UnsupportedProtocolVersionError"
                ? Effect.zipRight(Effect.sync(() => (stale = true)), session)
                // The request that needed it reports its own failure; the old discovery stays.
                : Effect.as(Effect.logDebug(`${server}: re-discovery failed (${error._tag})`), s)
          })
        )
    const discovered: Effect.Effect<Session, ConnectError> = Effect.flatMap(
      Effect.suspend(() => session),
      (s) =>
        s.negotiated.era === "legacy" ?
          Effect.succeed(s) :
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            cache.fresh(ResultCache.DISCOVER_KEY, DISCOVERY_CONTEXT, now) !== undefined ||
              now - discoveredAt < Limits.MIN_REDISCOVERY_INTERVAL_MS
              ? Effect.succeed(s)
              : rediscover(s))
    )

    // The state: `Connecting` for the first opening, `Reconnecting` for each later one, `Ready`
    // once open, `Failed` when an opening failed and no supervisor tries again.
    let everReady = false
    let attempts = 0
    let lastCause: ConnectError | undefined
    let supervising = false
    const open: Effect.Effect<Session, ConnectError> = Effect.suspend(() =>
      Effect.flatMap(
        live !== undefined && !live.peer.isOpen() ? live.peer.closed : Effect.succeed(lastCause),
        (cause) =>
          Effect.zipRight(
            state.set(
              everReady ? ConnectionState.Reconnecting({ attempt: ++attempts, cause }) : ConnectionState.Connecting()
            ),
            tracing === undefined ? openSession : Tracing.connect(tracing, openSession, (s) => s.attributes ?? {})
          )
      )
    ).pipe(
      Effect.tapBoth({
        onSuccess: (s) =>
          Effect.suspend(() => {
            everReady = true
            attempts = 0
            lastCause = undefined
            return state.set(
              ConnectionState.Ready({
                protocolVersion: s.negotiated.protocolVersion,
                serverInfo: s.negotiated.serverInfo,
                negotiated: s.negotiated
              })
            )
          }),
        onFailure: (error) =>
          Effect.suspend(() => {
            lastCause = error
            return supervising ? Effect.void : state.set(ConnectionState.Failed({ cause: error }))
          })
      })
    )

    // Supervised reconnect: attempts at once, then after each delay of the schedule, until a
    // session is open (by it or by a request) or the schedule ends (`Failed`).
    const reconnect = config.reconnect === undefined ? undefined : toSchedule(config.reconnect)
    const supervise = (schedule: Schedule.Schedule<unknown, ConnectError>) =>
      Effect.suspend(() => {
        if (supervising) return Effect.void
        supervising = true
        return Effect.gen(function*() {
          const driver = yield* Schedule.driver(schedule)
          while (!closed) {
            const result = yield* Effect.either(session)
            if (Either.isRight(result)) return
            const next = yield* Effect.either(driver.next(result.left))
            if (Either.isLeft(next)) return yield* state.set(ConnectionState.Failed({ cause: result.left }))
          }
        }).pipe(
          Effect.ensuring(Effect.sync(() => (supervising = false))),
          Effect.forkIn(parentScope),
          Effect.asVoid
        )
      })

    // Watches an open session (in its scope) for its end (the session metric); gives what to do
    // when its peer closes.
    const watch = (s: Session) =>
      Effect.gen(function*() {
        const startedAt = tracing?.clock.unsafeCurrentTimeNanos() ?? BigInt(0)
        let ended = false
        const end = (cause: ConnectError | undefined) =>
          Effect.suspend(() => {
            if (ended || tracing === undefined) return Effect.void
            ended = true
            return Tracing.sessionEnded(tracing, s.attributes ?? {}, startedAt, cause)
          })
        // Runs before the peer's own finalizers: a peer closed by then died. (Without a tracer
        // there is no session metric to end: no finalizer.)
        if (tracing !== undefined) {
          yield* Effect.addFinalizer(() =>
            Effect.flatMap(s.peer.isOpen() ? Effect.succeed(undefined) : s.peer.closed, end)
          )
        }
        return (error: ConnectionError) =>
          Effect.suspend(() => {
            if (closed || live?.peer !== s.peer) return Effect.void
            lastCause = error
            return Effect.zipRight(
              end(error),
              reconnect === undefined ? state.set(ConnectionState.Failed({ cause: error })) : supervise(reconnect)
            )
          })
      })

    const usable = (s: Session | undefined): s is Session => s !== undefined && !stale && s.peer.isOpen()
    const session: Effect.Effect<Session, ConnectError> = Effect.suspend(() =>
      usable(live)
        ? Effect.succeed(live)
        : lock.withPermits(1)(Effect.suspend(() => usable(live) ? Effect.succeed(live) : open))
    )

    return {
      session,
      discovered,
      reopenOnNextUse: () => {
        stale = live !== undefined
      },
      live: () => live,
      kind: () => kind,
      isHttp: () => kind === "streamable_http" || kind === "http",
      isClosed: () => closed,
      scope: parentScope
    }
  })
