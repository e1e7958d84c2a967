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

/**
 * `listener` hears every change as it happens (a host's, registered before the first opening).
 * The stream's ref is made by its first reader: most connections never have one. Made at once,
 * by a caller already in a synchronous step.
 *
 * @internal
 */
export const unsafeMake = (listener: ((state: ConnectionState) => void) | undefined): State => {
  let current: ConnectionState = ConnectionState.Connecting()
  let ref: SubscriptionRef.SubscriptionRef<ConnectionState> | undefined
  const refNow = () => ref ??= Effect.runSync(SubscriptionRef.make(current))
  const publish = (state: ConnectionState) => ref === undefined ? Effect.void : SubscriptionRef.set(ref, state)
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
              repeated ? Effect.void : publish(state)
            )
          }
        }
        return repeated ? Effect.void : publish(state)
      }),
    current: () => current,
    subscribable: Subscribable.make({
      get: Effect.sync(() => current),
      // `suspend`, not `unwrap(sync)`: the same stream, a fraction of the heap per connection.
      changes: Stream.suspend(() => Stream.takeUntil(refNow().changes, (state) => state._tag === "Closed"))
    })
  }
}
