/**
 * The capability gate: a request the server's declared capabilities do not cover fails with
 * `CapabilityError` before it goes out. The capabilities read are the current ones (a lapsed
 * 2026-07-28 discovery is re-fetched first). Composed into the gated sender only.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { CapabilityError, ConnectError } from "../../McpError.js"
import * as Protocol from "../../Protocol.js"
import type { Send } from "./send.js"

/** @internal */
export const capabilityGate = (
  server: string,
  discovered: Effect.Effect<{ readonly negotiated: Protocol.Negotiated }, ConnectError>
) =>
<E>(next: Send<E>): Send<E | CapabilityError> =>
(request) =>
  Effect.flatMap(discovered, (s): Effect.Effect<unknown, ConnectError | E | CapabilityError> => {
    const refused = Protocol.legacy.gate(server, s.negotiated, request.method)
    return refused !== undefined ? Effect.fail(refused) : next(request)
  })
