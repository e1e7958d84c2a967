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
import type * as Subscription from "../../Subscription.js"
import type { Core } from "./core.js"

/** One watched URI: its listen stream and the scope that holds it. */
interface Watch {
  readonly scope: Scope.CloseableScope
  readonly subscription: Subscription.Subscription
}

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
  const watches = new Map<string, Watch>()
  const watchResource = (uri: string): Effect.Effect<void, ConnectError | CapabilityError> =>
    Effect.suspend(() => {
      // A watch being re-opened answers after the replacement's acknowledgement, which ends the
      // watch (a CapabilityError) if it no longer names the URI.
      const existing = watches.get(uri)
      if (existing !== undefined) return existing.subscription.whenActive
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
          const watch: Watch = { scope, subscription }
          watches.set(uri, watch)
          yield* Effect.forkScoped(
            Effect.ignore(Stream.runDrain(subscription.notifications)).pipe(
              Effect.ensuring(Effect.sync(() => watches.get(uri) === watch && watches.delete(uri)))
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
        (s): Effect.Effect<void, ConnectError | CapabilityError> => {
          if (s.negotiated.era !== "legacy") return watchResource(uri)
          // Its updates would come on the GET stream: without one (the origin's limit) none would.
          const refused = s.peer.streamRefused?.()
          if (refused !== undefined) return Effect.fail(refused)
          return Effect.asVoid(core.gated({ method: "resources/subscribe", params: { uri }, options: requestOptions }))
        }
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
        return watch === undefined ? Effect.void : Scope.close(watch.scope, Exit.void)
      })
  }
}
