/**
 * The connection's state (`ConnectionState`): set by the session part, read as a value or a
 * stream of changes that ends after `Closed`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Subscribable from "effect/Subscribable"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { ConnectionState } from "../../ConnectionState.js"

/** @internal */
export interface State {
  readonly set: (state: ConnectionState) => Effect.Effect<void>
  readonly current: () => ConnectionState
  readonly subscribable: Subscribable.Subscribable<ConnectionState>
}

/** `listener` hears every change as it happens (a host's, registered before the first opening). @internal */
export const make = (listener: ((state: ConnectionState) => void) | undefined): Effect.Effect<State> =>
  Effect.map(SubscriptionRef.make<ConnectionState>(ConnectionState.Connecting()), (ref) => {
    let current: ConnectionState = ConnectionState.Connecting()
    return {
      // Nothing follows `Closed`.
      set: (state) =>
        Effect.suspend(() => {
          if (current._tag === "Closed") return Effect.void
          // The stream starts at `Connecting` already; the listener hears it when it happens.
          const repeated = current._tag === "Connecting" && state._tag === "Connecting"
          current = state
          if (listener !== undefined) {
            try {
              listener(state)
            } catch (error) {
              return Effect.zipRight(
                Effect.logWarning(`a state listener threw: ${String(error)}`),
                repeated ? Effect.void : SubscriptionRef.set(ref, state)
              )
            }
          }
          return repeated ? Effect.void : SubscriptionRef.set(ref, state)
        }),
      current: () => current,
      subscribable: Subscribable.make({
        get: SubscriptionRef.get(ref),
        changes: Stream.takeUntil(ref.changes, (state) => state._tag === "Closed")
      })
    }
  })
