/**
 * Resource subscriptions in both eras: legacy `resources/subscribe`/`unsubscribe`, and on
 * 2026-07-28 (which has neither) a watch: a listen stream naming the URI.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { ConnectError } from "../../McpError.js"
import { CapabilityError } from "../../McpError.js"
import type { ServerConnection } from "../../ServerConnection.js"
import type { Core } from "./core.js"

/** What resource watches use of the core. @internal */
export type Needs = Pick<Core, "server" | "scope" | "session" | "gated">

/** @internal */
export const make = (
  core: Needs,
  listen: ServerConnection["listen"]
): Pick<ServerConnection, "subscribeResource" | "unsubscribeResource"> => {
  const { server } = core

  // A watch is kept in a scope of its own until unsubscribeResource. It answers only once the
  // server's acknowledgement names the URI; its updates reach host listeners through the router.
  const watches = new Map<string, Scope.CloseableScope>()
  const watchResource = (uri: string): Effect.Effect<void, ConnectError | CapabilityError> =>
    Effect.suspend(() => {
      if (watches.has(uri)) return Effect.void
      return Effect.flatMap(Scope.fork(core.scope, ExecutionStrategy.sequential), (scope) =>
        Effect.gen(function*() {
          const subscription = yield* listen({ resourceSubscriptions: [uri] })
          if (!(subscription.acknowledged.resourceSubscriptions ?? []).includes(uri)) {
            return yield* new CapabilityError({
              server,
              capability: `resources.subscribe (${uri})`,
              method: "subscriptions/listen"
            })
          }
          // Updates go to host listeners via the router; the queue is drained here. A watch that
          // ended (the server closed it, or a re-open lost the URI) is forgotten, so subscribing
          // again opens a new one instead of reporting a dead one as watched.
          watches.set(uri, scope)
          yield* Effect.forkScoped(
            Effect.ignore(Stream.runDrain(subscription.notifications)).pipe(
              Effect.ensuring(Effect.sync(() => watches.get(uri) === scope && watches.delete(uri)))
            )
          )
        }).pipe(
          Scope.extend(scope),
          Effect.onError(() => Scope.close(scope, Exit.void))
        ))
    })

  return {
    subscribeResource: (uri, requestOptions) =>
      Effect.flatMap(
        core.session,
        (s): Effect.Effect<void, ConnectError | CapabilityError> =>
          s.negotiated.era === "legacy"
            ? Effect.asVoid(core.gated({ method: "resources/subscribe", params: { uri }, options: requestOptions }))
            : watchResource(uri)
      ),
    unsubscribeResource: (uri, requestOptions) =>
      Effect.flatMap(core.session, (s): Effect.Effect<void, ConnectError | CapabilityError> => {
        if (s.negotiated.era === "legacy") {
          return Effect.asVoid(
            core.gated({ method: "resources/unsubscribe", params: { uri }, options: requestOptions })
          )
        }
        const watch = watches.get(uri)
        watches.delete(uri)
        return watch === undefined ? Effect.void : Scope.close(watch, Exit.void)
      })
  }
}
