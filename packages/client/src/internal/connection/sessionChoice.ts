/**
 * Which session to open: one candidate (the config's transport, then its fallbacks in order) at a
 * time, each opened as its own scope with the era's exchange; once one worked, reopening uses it
 * alone.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import type * as EraCache from "../../EraCache.js"
import type { ConnectError, ConnectionError } from "../../McpError.js"
import * as Protocol from "../../Protocol.js"
import * as RpcPeer from "../../RpcPeer.js"
import type { ServerConfig } from "../../ServerConfig.js"
import type { Transport } from "../../Transport.js"
import * as Tracing from "../tracing.js"
import type { Session, Shared } from "./core.js"
import * as RememberedEra from "./rememberedEra.js"
import type { Router } from "./router.js"

/** The keep-alive request of the era: `ping`, or a `server/discover` on 2026-07-28. */
const pingWith = (identity: Shared["identity"], peer: RpcPeer.RpcPeer, negotiated: Protocol.Negotiated) =>
  negotiated.era === "legacy"
    ? peer.request("ping", undefined)
    : peer.request("server/discover", {
      _meta: Protocol.requestMeta(identity, negotiated.protocolVersion)
    }, { hints: { modern: true, headers: Protocol.modernHeaders("server/discover", negotiated.protocolVersion) } })

/** @internal */
export interface SessionChoice {
  /** Opens a session with the chosen candidate, or tries them in order until one opens. */
  readonly open: Effect.Effect<Session, ConnectError>
  /** The transport kind in use (the fallback that worked, once one did). */
  readonly kind: () => string
}

/** @internal */
export const make = <R>(options: {
  readonly config: ServerConfig<R>
  readonly core: Pick<Shared, "server" | "defaultTimeoutMs" | "identity" | "tracing">
  readonly router: Router
  readonly mode: Protocol.ProtocolMode
  readonly discoverTimeoutMs: number
  /** The host's era memory and the config's key in it, when both are given in "auto" mode. */
  readonly eraCache: EraCache.Service | undefined
  readonly context: Context.Context<R>
  readonly runFork: (effect: Effect.Effect<void>, options: { readonly immediate: boolean }) => unknown
  /** Where each session's scope is forked. */
  readonly sessionsScope: Scope.Scope
  /** Watches an open session (in its scope); gives what to do when its peer closes. */
  readonly watch: (s: Session) => Effect.Effect<(error: ConnectionError) => Effect.Effect<void>, never, Scope.Scope>
}): SessionChoice => {
  const { config, context, discoverTimeoutMs, eraCache, mode, router, runFork, watch } = options
  const { defaultTimeoutMs, identity, server, tracing } = options.core
  const eraKey = config.eraCacheKey
  const candidates = [{ kind: config.kind, transport: config.transport }, ...(config.fallbacks ?? [])]
  // Once a candidate worked (auto-detection), reopening uses it alone.
  let chosen: number | undefined
  let kind = config.kind

  // The era is remembered for the life of the connection; a reopen after a failure probes again.
  const openWith = (candidate: number) =>
    Effect.flatMap(Scope.fork(options.sessionsScope, ExecutionStrategy.sequential), (scope) =>
      Effect.gen(function*() {
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
        // The scope and the connection's context in one `provide` (a second one sets and restores
        // the fiber's context again, copying its refs each time).
        Effect.provide(Context.add(context, Scope.Scope, scope)),
        Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
      ))

  const open = Effect.gen(function*() {
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
    return opened
  })

  return { open, kind: () => kind }
}
