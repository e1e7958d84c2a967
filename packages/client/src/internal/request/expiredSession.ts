/**
 * An expired HTTP session: the request is re-sent once, with `resend` (on a new session) —
 * unless it is a tool call, which may have had effects; that fails so the caller decides.
 * Composed on sessions that have one (a handshake era's, over HTTP).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Policies from "../policies.js"
import type { Send, Step } from "./send.js"

/** @internal */
export const resendOnExpiredSession = (resend: Send): Step => (next) => (request) =>
  Policies.resendsOnExpiredSession(request.method)
    ? Effect.catchTag(next(request), "SessionExpiredError", () => resend(request))
    : next(request)
