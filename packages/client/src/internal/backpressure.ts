/**
 * A transport's side of flow control: whether to stop reading now, and the wait until reading
 * may go on — bounded, a stream stopped for too long failing with `ConnectionError`.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { ConnectionError } from "../McpError.js"
import type { Backpressure } from "../Transport.js"

/**
 * `undefined` when reading may go on now, else the wait until it may: failing with
 * `ConnectionError` once the stream stayed stopped past the receiver's stall bound.
 *
 * @internal
 */
export const wait = (
  backpressure: Backpressure | undefined,
  server: string,
  what: string
): Effect.Effect<void, ConnectionError> | undefined =>
  backpressure === undefined || !backpressure.paused() ? undefined : Effect.timeoutFail(backpressure.resumed, {
    duration: backpressure.stallTimeout,
    onTimeout: () =>
      new ConnectionError({
        server,
        message: `${what} stayed stopped for ${
          Duration.format(backpressure.stallTimeout)
        }: the answers to the server's requests do not drain`,
        reason: "timeout"
      })
  }).pipe(Effect.tapError((error) => Effect.logWarning(`${server}: ${error.message}; closing it`)))
