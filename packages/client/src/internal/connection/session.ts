/**
 * The session of a connection, and only that: opening it with the era's exchange (trying the
 * config's fallbacks in order), reopening it under a lock after the server died, the keep-alive
 * ping, and closing.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import type { ConnectError } from "../../McpError.js"
import { ConnectionError } from "../../McpError.js"
import * as Protocol from "../../Protocol.js"
import * as RpcPeer from "../../RpcPeer.js"
import type { ServerConfig } from "../../ServerConfig.js"
import type { Session, Sessions, Shared } from "./core.js"
import type { Router } from "./router.js"

const DEFAULT_DISCOVER_TIMEOUT_MS = 5_000

/** The keep-alive request of the era: `ping`, or a `server/discover` on 2026-07-28. @internal */
export const pingWith = (identity: Shared["identity"], peer: RpcPeer.RpcPeer, negotiated: Protocol.Negotiated) =>
  negotiated.era === "legacy"
    ? peer.request("ping", undefined)
    : peer.request("server/discover", {
      _meta: Protocol.requestMeta(identity, negotiated.protocolVersion)
    }, { hints: { modern: true, headers: Protocol.modernHeaders("server/discover", negotiated.protocolVersion) } })

/** What the session uses of the core. @internal */
export type Needs = Pick<Shared, "server" | "options" | "defaultTimeoutMs" | "identity" | "cache">

/** @internal */
export const make = <R>(
  config: ServerConfig<R>,
  core: Needs,
  router: Router
): Effect.Effect<Sessions, never, Scope.Scope | R> =>
  Effect.gen(function*() {
    const { cache, defaultTimeoutMs, identity, options, server } = core
    const context = yield* Effect.context<R>()
    const parentScope = yield* Effect.scope
    const discoverTimeoutMs = Duration.toMillis(
      Duration.decode(config.discoverTimeout ?? options.discoverTimeout ?? DEFAULT_DISCOVER_TIMEOUT_MS)
    )
    const mode: Protocol.ProtocolMode = config.protocol ?? options.protocol ?? "auto"

    let live: Session | undefined
    // Sessions live in a scope of their own, closed after `closed` is set: what fails because the
    // host closed the connection (a listen stream, say) sees that it was closed, not that it crashed.
    const sessionsScope = yield* Scope.fork(parentScope, ExecutionStrategy.sequential)
    let closed = false
    yield* Effect.addFinalizer(() => Effect.sync(() => (closed = true)))
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
          const peer = yield* RpcPeer.make({
            server,
            transport: candidates[candidate]!.transport,
            defaultTimeoutMs,
            onNotification: router.onNotification,
            onRequest: router.onRequest
          })
          const negotiated = yield* Protocol.detect(server, peer, identity, {
            mode: candidates[candidate]!.kind === "sse" ? "legacy" : mode,
            discoverTimeoutMs,
            timeoutMs: defaultTimeoutMs
          })
          if (config.keepAlive !== undefined) {
            yield* pingWith(identity, peer, negotiated).pipe(
              Effect.catchAll((error) => Effect.logDebug(`${server}: keep-alive ping failed: ${error.message}`)),
              Effect.repeat(Schedule.spaced(config.keepAlive)),
              Effect.forkScoped
            )
          }
          return { scope, peer, negotiated } satisfies Session
        }).pipe(
          Scope.extend(scope),
          Effect.provide(context),
          Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
        )
      })

    const open = Effect.gen(function*() {
      if (closed) return yield* new ConnectionError({ server, message: "the connection is closed" })
      if (live !== undefined) {
        yield* Scope.close(live.scope, Exit.void)
        live = undefined
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
      return opened
    })

    const session: Effect.Effect<Session, ConnectError> = Effect.suspend(() =>
      live !== undefined && live.peer.isOpen()
        ? Effect.succeed(live)
        : lock.withPermits(1)(
          Effect.suspend(() => live !== undefined && live.peer.isOpen() ? Effect.succeed(live) : open)
        )
    )

    return {
      session,
      live: () => live,
      kind: () => kind,
      isHttp: () => kind === "streamable_http" || kind === "http",
      isClosed: () => closed,
      scope: parentScope
    }
  })
