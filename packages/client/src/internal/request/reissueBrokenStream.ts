/**
 * A 2026-07-28 response stream that broke before its result: the request is re-issued once
 * (with a new id). A listen's broken stream is the subscription's to re-open (backoff,
 * re-acknowledgement), so it is left alone. Composed on 2026-07-28 sessions whose transport
 * has response streams (not one that writes without a fiber: it has none).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Policies from "../policies.js"
import type { Step } from "./send.js"

/** @internal */
export const reissueBrokenStream: Step = (next) => (request) => {
  const once = next(request)
  return Policies.reissuesBrokenStream(request.method)
    ? Effect.catchTag(once, "ResponseStreamClosedError", () => once)
    : once
}
