/**
 * An expired HTTP session: the request is re-sent once, on a new session — unless it is a tool
 * call, which may have had effects; that fails so the caller decides. Composed on connections
 * whose transports have sessions (HTTP).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { Step } from "./send.js"

/** @internal */
export const resendOnExpiredSession: Step = (next) => (request) =>
  request.method === "tools/call"
    ? next(request)
    : Effect.catchTag(next(request), "SessionExpiredError", () => next(request))
