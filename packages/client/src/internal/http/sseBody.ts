/**
 * Reading an SSE body: events delivered as they arrive, per-event caps, and the accounting that
 * logs problems and closes a stream of garbage.
 *
 * @internal
 */
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import type { ConnectionError } from "../../McpError.js"
import { ResponseTooLargeError } from "../../McpError.js"
import type { Backpressure } from "../../Transport.js"
import * as Flow from "../backpressure.js"
import * as Limits from "../limits.js"
import { summarize } from "../wire/ndjson.js"
import { makeSseParser } from "../wire/sse.js"
import type { SseEvent, SseParser } from "../wire/sse.js"
import { bodyStream, codingOf, isIdentity, readChunks, readerOf, transportError } from "./http.js"
import type { HttpSettings } from "./http.js"

/** @internal */
export interface SseReadOptions {
  /**
   * Takes one event; returns `false` for one it could not use (not JSON, say): that is logged
   * (the first at once, then a count) and counts towards closing a stream of garbage.
   */
  readonly onEvent: (event: SseEvent) => boolean | void
  readonly onRetry: (millis: number) => void
  readonly lastEventId: (id: string) => void
  /**
   * The id of the request whose reply this stream is. On such a stream an event over the cap
   * ends the read at once, failing with `ResponseTooLargeError` (at most the cap plus one chunk
   * read): waiting for the event's end could mean reading without bound. Without it (a GET or
   * listen stream) oversized events are skipped, and a stream closed as garbage fails with
   * `ConnectionError`, which its owner treats as any dropped stream (re-opening it).
   */
  readonly responseId?: string | number | undefined
  /**
   * The receiver's flow control: the body is not read while it says so (see
   * `Transport.Backpressure`); a stream stopped past its stall bound fails with `ConnectionError`.
   */
  readonly backpressure?: Backpressure | undefined
}

/**
 * One SSE stream's accounting: its parser, the problems to log (the first of each kind at once,
 * a count when the stream ends), and the rule that closes a stream of garbage: more than
 * `MAX_UNUSABLE_SSE_EVENTS` unusable events in a row, or more than `MAX_SKIPPED_SSE_BYTES` (or
 * 4 × the event cap) bytes of skipped events, with no usable event between.
 */
const sseAccount = (s: HttpSettings, options: SseReadOptions) => {
  const logs: Array<string> = []
  const maxSkipped = Math.max(Limits.MAX_SKIPPED_SSE_BYTES, 4 * s.maxEventBytes)
  let oversized = 0
  let malformed = 0
  let badIds = 0
  let unusable = 0
  let skippedAtUsable = 0
  // On a reply stream an oversized event fails the request and closes the stream.
  const isReply = options.responseId !== undefined
  const parser: SseParser = makeSseParser({
    maxEventBytes: s.maxEventBytes,
    maxEventIdLength: Limits.MAX_EVENT_ID_LENGTH,
    onEvent: (event) => {
      if (options.onEvent(event) === false) {
        unusable++
        if (malformed++ === 0) {
          logs.push(`skipped a malformed message (${summarize(event.data.slice(0, 4096))}); later ones are counted`)
        }
      } else {
        unusable = 0
        skippedAtUsable = parser.skippedBytes()
      }
    },
    onRetry: options.onRetry,
    onProblem: (problem, detail, head) => {
      if (problem === "invalid-event-id") {
        if (badIds++ === 0) logs.push(`ignored an invalid event id (${detail}); later ones are counted`)
        return
      }
      unusable++
      if (oversized++ === 0) {
        const what = summarize(head)
        logs.push(
          `skipped an event over the ${s.maxEventBytes}-byte cap (${detail}${
            what === "" ? "" : `, ${what}`
          }); later ones are counted`
        )
      }
    }
  })
  // The parser's last event id is the spec's: it also counts ids of events without data.
  let reported: string | undefined
  let garbage = false
  const flush = Effect.suspend(() =>
    logs.length === 0 ? Effect.void : Effect.logWarning(`${s.server}: SSE stream: ${logs.splice(0).join("; ")}`)
  )
  return {
    /** Parses a chunk; `false` once the stream is garbage and must be closed. */
    push: (chunk: Uint8Array): boolean => {
      parser.push(chunk)
      const id = parser.lastEventId()
      if (id !== undefined && id !== reported) {
        reported = id
        options.lastEventId(id)
      }
      garbage = unusable > Limits.MAX_UNUSABLE_SSE_EVENTS || parser.skippedBytes() - skippedAtUsable > maxSkipped
      return !garbage && !(isReply && oversized > 0)
    },
    hasLogs: () => logs.length > 0,
    flush,
    /** Ends the parse, logs the counts, and says how the read ends. */
    end: <E>(read: Either.Either<void, E>): Effect.Effect<void, E | ConnectionError | ResponseTooLargeError> =>
      Effect.suspend(() => {
        parser.end()
        if (oversized > 1 || malformed > 1 || badIds > 1) {
          logs.push(
            `it ended having skipped ${oversized} events over the cap and ${malformed} malformed messages, and ignored ${badIds} invalid event ids`
          )
        }
        if (garbage) {
          logs.push(
            `closed after ${unusable} unusable events and ${
              parser.skippedBytes() - skippedAtUsable
            } skipped bytes with no usable event`
          )
        }
        const outcome: Effect.Effect<void, E | ConnectionError | ResponseTooLargeError> = isReply && oversized > 0
          ? Effect.fail(new ResponseTooLargeError({ server: s.server, limit: s.maxEventBytes }))
          : !garbage
          ? read
          : Effect.fail(transportError(s, "the SSE stream sent only unusable events"))
        return Effect.zipRight(flush, outcome)
      })
  }
}

/**
 * Reads an SSE body to its end, delivering events as they arrive (never buffering the whole
 * body). The caps are per event (one event, hence one line, at most `maxEventBytes`), never per
 * stream: a stream may carry any number of events over its life. An oversized event is skipped
 * as it arrives and the stream goes on (on a request's reply stream it fails that request and
 * ends the read, see `SseReadOptions.responseId`); a stream of garbage is closed (see `sseAccount`).
 * Problems are logged without payloads, the first of each kind at once, a count at the end.
 *
 * @internal
 */
export const readSse = (
  s: HttpSettings,
  response: HttpClientResponse.HttpClientResponse,
  options: SseReadOptions
): Effect.Effect<void, ConnectionError | ResponseTooLargeError> =>
  Effect.suspend(() => {
    const account = sseAccount(s, options)
    const reader = isIdentity(codingOf(s, response)) ? readerOf(response) : undefined
    if (reader !== undefined) {
      // Chunks are parsed as they arrive, in the response's callback; problems are logged from
      // there with this fiber's services (its logger), as soon as they are found.
      return Effect.flatMap(Effect.runtime<never>(), (runtime) => {
        const runFork = Runtime.runFork(runtime)
        // A full receiver pauses the body; a pause past its bound ends the read with its error.
        let stalled: ConnectionError | undefined
        const pause = (wait: Effect.Effect<void, ConnectionError>) => (resume: (goOn: boolean) => void) =>
          runFork(wait).addObserver((exit) => {
            if (Exit.isFailure(exit)) stalled = Option.getOrUndefined(Cause.failureOption(exit.cause))
            resume(Exit.isSuccess(exit))
          })
        return Effect.flatMap(
          Effect.either(readChunks(s, reader, (chunk) => {
            const open = account.push(chunk)
            if (account.hasLogs()) runFork(account.flush)
            const stopped = open ? Flow.wait(options.backpressure, s.server, "the SSE stream") : undefined
            return stopped === undefined ? open : pause(stopped)
          })),
          (read) => stalled === undefined ? account.end(read) : Effect.zipRight(account.end(read), Effect.fail(stalled))
        )
      })
    }
    return Effect.flatMap(
      Effect.either(
        Stream.runForEachWhile(bodyStream(s, response, Infinity), (chunk) =>
          Effect.suspend(() => {
            const open = account.push(chunk)
            const logged = account.hasLogs() ? Effect.as(account.flush, open) : Effect.succeed(open)
            const stopped = open ? Flow.wait(options.backpressure, s.server, "the SSE stream") : undefined
            return stopped === undefined ? logged : Effect.zipRight(logged, Effect.as(stopped, true))
          }))
      ),
      account.end
    )
  })
