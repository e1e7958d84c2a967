/**
 * `-32020`: the server computed other header values than the request carried, so the
 * definitions behind them (a tool's `x-mcp-header` parameters) may have changed. A request that
 * can be built afresh (`refresh`) is, and sent again once. Offers the fiber-free path of the
 * sender it wraps: a mismatch goes on as an effect.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { ValidationError } from "../../McpError.js"
import type { OutgoingRequest, Send } from "./send.js"
import { proceed, sender } from "./send.js"

const isMismatch = (cause: Cause.Cause<unknown>) =>
  Cause.isFailType(cause) && (cause.error as { readonly _tag?: unknown })._tag === "HeaderMismatchError"

/** @internal */
export const refreshOnHeaderMismatch = <E>(next: Send<E>): Send<E | ValidationError> => {
  const again = (refresh: NonNullable<OutgoingRequest["refresh"]>) => Effect.flatMap(refresh(), next)
  const now = next.now
  return sender<E | ValidationError>(
    (request) => {
      const refresh = request.refresh
      return refresh === undefined
        ? next(request)
        : Effect.catchTag(next(request), "HeaderMismatchError", () => again(refresh))
    },
    now === undefined ? undefined : (request, onOutcome) => {
      const refresh = request.refresh
      if (refresh === undefined) return now(request, onOutcome)
      return now(request, (outcome) =>
        onOutcome(
          outcome._tag === "Continue"
            ? proceed(Effect.catchTag(outcome.effect, "HeaderMismatchError", () => again(refresh)))
            : Exit.isFailure(outcome.exit) && isMismatch(outcome.exit.cause)
            ? proceed(again(refresh))
            : outcome
        ))
    }
  )
}
