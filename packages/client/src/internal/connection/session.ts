/**
 * The session of a connection, and only that: opening it (`sessionChoice.ts`: the config's
 * transport and fallbacks, the era's exchange), reopening it under a lock after the server died
 * (`supervisor.ts`: the state, supervised reconnect), its 2026-07-28 discovery (`discovery.ts`),
 * and closing. This module wires them around the current session.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { ConnectionState } from "../../ConnectionState.js"
import * as Deprecations from "../../Deprecations.js"
import { EraCache } from "../../EraCache.js"
import type { ConnectError } from "../../McpError.js"
import { ConnectionError } from "../../McpError.js"
import type * as Protocol from "../../Protocol.js"
import type { ServerConfig } from "../../ServerConfig.js"
import * as Defaults from "../defaults.js"
import * as Policies from "../policies.js"
import type { Current, Session, SessionAccess, Shared } from "./core.js"
import * as Discovery from "./discovery.js"
import type { Router } from "./router.js"
import * as SessionChoice from "./sessionChoice.js"
import * as Supervisor from "./supervisor.js"

/** What the session uses of the core. @internal */
export type Needs = Pick<
  Shared,
  "server" | "options" | "defaultTimeoutMs" | "identity" | "cache" | "tracing" | "state"
>

/** @internal */
export const make = <R>(
  config: ServerConfig<R>,
  core: Needs,
  router: Router,
  runFork: Parameters<typeof SessionChoice.make<R>>[0]["runFork"]
): Effect.Effect<SessionAccess, never, Scope.Scope | R> =>
  Effect.gen(function*() {
    const { cache, options, server, state } = core
    const context = yield* Effect.context<R>()
    const parentScope = yield* Effect.scope
    const discoverTimeoutMs = Duration.toMillis(
      Duration.decode(config.discoverTimeout ?? options.discoverTimeout ?? Defaults.DISCOVER_TIMEOUT_MS)
    )
    const mode: Protocol.ProtocolMode = config.protocol ?? options.protocol ?? "auto"
    // The host's era memory, when it gave one and the config names the server.
    const eraCache = mode === "auto" && config.eraCacheKey !== undefined
      ? Option.getOrUndefined(yield* Effect.serviceOption(EraCache))
      : undefined

    const current: Current = { session: undefined, stale: false, closed: false }
    // Sessions live in a scope of their own, closed after `closed` is set: what fails because the
    // host closed the connection (a listen stream, say) sees that it was closed, not that it crashed.
    const sessionsScope = yield* Scope.fork(parentScope, ExecutionStrategy.sequential)
    // A finalizer of the scope itself, not `Effect.addFinalizer`, which keeps a copy of the
    // fiber's refs per connection for it; its effect built when it runs.
    yield* Scope.addFinalizerExit(parentScope, () => {
      current.closed = true
      return state.set(ConnectionState.Closed())
    })
    const reusable = (s: Session | undefined): s is Session => s !== undefined && !current.stale && s.peer.isOpen()
    // Openings take turns under a lock. An opening that finds none running or waiting takes it
    // by counting (a semaphore's permit and its `ensuring` were some 30 run-loop steps of every
    // connect); a semaphore exists only while others wait: made with no permit free, it gets one
    // when that opening ends. An idle connection keeps none (its closures are heap per connection).
    let lock: Effect.Semaphore | undefined
    let lockUsers = 0
    const releaseAlone = Effect.suspend(() => {
      if (--lockUsers === 0 || lock === undefined) {
        lock = undefined
        return Effect.void
      }
      return lock.release(1)
    })
    const underLock = <A, E>(effect: Effect.Effect<A, E>) =>
      Effect.uninterruptibleMask((restore) => {
        if (lockUsers === 0) {
          lockUsers = 1
          return Effect.matchCauseEffect(restore(effect), {
            onFailure: (cause) => Effect.zipRight(releaseAlone, Effect.failCause(cause)),
            onSuccess: (a) => Effect.as(releaseAlone, a)
          })
        }
        lock ??= Effect.unsafeMakeSemaphore(0)
        lockUsers++
        return Effect.ensuring(
          restore(lock.withPermits(1)(effect)),
          Effect.sync(() => {
            if (--lockUsers === 0) lock = undefined
          })
        )
      })
    const session: Effect.Effect<Session, ConnectError> = Effect.suspend(() =>
      reusable(current.session)
        ? Effect.succeed(current.session)
        : underLock(
          Effect.suspend(() => reusable(current.session) ? Effect.succeed(current.session) : supervisor.open)
        )
    )

    const choice = SessionChoice.make({
      config,
      core,
      router,
      mode,
      discoverTimeoutMs,
      eraCache,
      context,
      runFork,
      sessionsScope,
      watch: (s) => supervisor.watch(s)
    })
    const discovery = Discovery.make({ core, discoverTimeoutMs, current, session })

    const openSession = Effect.gen(function*() {
      if (current.closed) {
        return yield* new ConnectionError({ server, message: "the connection is closed", reason: "closed" })
      }
      if (current.session !== undefined) {
        // No longer live before its scope closes: its peer's close is no death.
        const old = current.session
        current.session = undefined
        // A dead session's teardown (a stdio process's exit awaited, its pipes drained) runs beside
        // the next opening: nothing of it is needed there, and a server killed under load comes back
        // that much sooner. It runs in the connection's scope, whose close waits for it. A live
        // session (re-opened on purpose) goes first: its process may hold what the next one needs.
        if (old.peer.isOpen()) yield* Scope.close(old.scope, Exit.void)
        else yield* Effect.forkIn(Effect.uninterruptible(Scope.close(old.scope, Exit.void)), parentScope)
        cache.clear()
      }
      const opened = yield* choice.open
      current.session = opened
      current.stale = false
      if (opened.negotiated.era === "modern") {
        yield* discovery.remember(opened.negotiated)
        yield* Deprecations.warnConfigured(options)
      }
      return opened
    })

    const supervisor = Supervisor.make({
      core,
      current,
      openSession,
      session,
      reconnect: config.reconnect === undefined ? undefined : Policies.reconnectSchedule(config.reconnect),
      scope: parentScope
    })

    return {
      session,
      discovered: discovery.discovered,
      reopenOnNextUse: () => {
        current.stale = current.session !== undefined
      },
      currentSession: () => current.session,
      kind: choice.kind,
      isHttp: () => choice.kind() === "streamable_http" || choice.kind() === "http",
      isClosed: () => current.closed,
      scope: parentScope
    }
  })
