/** @internal */
import type { Progress } from "@mcp-effect/client/RpcPeer"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Mailbox from "effect/Mailbox"
import * as Stream from "effect/Stream"

/**
 * Runs a request whose `onProgress` callback prints each notification as it arrives.
 * Progress callbacks are plain functions, so they feed a mailbox that a fiber prints from;
 * every notification is printed before the result is returned.
 *
 * @internal
 */
export const withProgress = <A, E, R>(
  print: (progress: Progress) => Effect.Effect<void>,
  request: (onProgress: (progress: Progress) => void) => Effect.Effect<A, E, R>
): Effect.Effect<{ readonly result: A; readonly notifications: number }, E, R> =>
  Effect.gen(function*() {
    const mailbox = yield* Mailbox.make<Progress>()
    let notifications = 0
    const printer = yield* Effect.fork(Stream.runForEach(Mailbox.toStream(mailbox), print))
    const result = yield* request((progress) => {
      notifications++
      mailbox.unsafeOffer(progress)
    }).pipe(Effect.ensuring(mailbox.end))
    yield* Fiber.join(printer)
    return { result, notifications }
  })
