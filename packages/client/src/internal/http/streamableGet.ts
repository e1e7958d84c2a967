/**
 * The reading side of a Streamable HTTP connection: one request's SSE answer, resumed with
 * `GET` + `Last-Event-ID` when it breaks before its response, and the optional GET stream of
 * unsolicited server messages, reconnected with backoff.
 *
 * @internal
 */
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type { AuthFailure } from "../../McpAuth.js"
import type { ConnectionError } from "../../McpError.js"
import { ResponseStreamClosedError } from "../../McpError.js"
import * as Policies from "../policies.js"
import * as Http from "./http.js"
import * as Reply from "./postReply.js"
import type { Id } from "./postReply.js"
import * as SseBody from "./sseBody.js"
import type { Connection } from "./streamableState.js"
import { deliver, get, parseEvent } from "./streamableState.js"

// 400 too: servers without a GET stream answer it so (mcp-lite), and a retry never helps.
const NO_STREAM = new Set([400, 404, 405, 406])

/**
 * Reads one request's SSE answer; resumes it with GET + Last-Event-ID if it breaks before the
 * response arrived (legacy only: `resumable`). A response that did arrive stands, whatever the
 * socket does next.
 *
 * @internal
 */
export const readExchange = (
  c: Connection,
  response: HttpClientResponse.HttpClientResponse,
  id: Id | undefined,
  method: string,
  resumable: boolean
) =>
  Effect.gen(function*() {
    let answered = false
    let lastEventId: string | undefined
    let retryMillis: number | undefined
    const read = (r: HttpClientResponse.HttpClientResponse) =>
      Effect.either(SseBody.readSse(c.settings, r, {
        onEvent: (event) => {
          if (event.data.length === 0) return
          const message = parseEvent(event.data)
          if (message === undefined) return false
          if (Reply.answers(message, id)) answered = true
          deliver(c, message)
        },
        onRetry: (millis) => (retryMillis = c.serverRetry = millis),
        lastEventId: (eventId) => (lastEventId = eventId),
        // An oversized event on a reply stream fails its request at once and ends the stream.
        // A listen stream carries notifications until it ends: what it loses must stay re-openable.
        responseId: method === "subscriptions/listen" ? undefined : id,
        // Stopped for too long, it is handled as a broken stream (resumed or reported).
        backpressure: c.sink.backpressure
      }))
    const firstRead = yield* read(response)
    if (firstRead._tag === "Left" && firstRead.left._tag === "ResponseTooLargeError" && id !== undefined && !answered) {
      return c.sink.onRequestFailed(id, firstRead.left)
    }
    let attempts = 0
    while (!answered && !c.closed && id !== undefined) {
      // 2026-07-28 has no resumption: the broken stream is reported and the caller re-issues.
      if (!resumable || lastEventId === undefined || attempts > Policies.resumeAttempts(c.settings.retries)) {
        return c.sink.onRequestFailed(
          id,
          new ResponseStreamClosedError({
            server: c.settings.server,
            method,
            message: lastEventId === undefined
              ? "the response stream ended before the response and cannot be resumed"
              : "the response stream could not be resumed"
          })
        )
      }
      attempts++
      yield* Effect.sleep(Http.retryDelay(c.settings, retryMillis ?? c.serverRetry, Policies.sseReconnectDelay))
      const resumed = yield* Effect.either(get(c, lastEventId))
      if (resumed._tag === "Right" && resumed.right.status === 200) yield* read(resumed.right)
      else if (resumed._tag === "Right") yield* Http.discard(resumed.right)
    }
  })

/**
 * The optional server → client stream, reconnected on a Schedule-like backoff that honours the
 * server's retry: (floored) and gives up after consecutive failures. `firstGet` is the answer to
 * the GET already sent.
 *
 * @internal
 */
export const listen = (
  c: Connection,
  firstGet: Effect.Effect<Either.Either<HttpClientResponse.HttpClientResponse, ConnectionError | AuthFailure>>
) => {
  // Outside the loop's closure, so that the first GET (its finished fiber) is not kept for as
  // long as the stream is listened to.
  let pending: typeof firstGet | undefined = firstGet
  return Effect.gen(function*() {
    let lastEventId: string | undefined
    let retryMillis: number | undefined
    let failures = 0
    while (!c.closed) {
      const opened = yield* (pending ?? Effect.either(get(c, lastEventId)))
      pending = undefined
      if (opened._tag === "Right" && NO_STREAM.has(opened.right.status)) {
        yield* Http.discard(opened.right)
        return yield* Effect.logDebug(`${c.settings.server}: no GET stream (HTTP ${opened.right.status})`)
      }
      if (opened._tag === "Right" && opened.right.status >= 200 && opened.right.status < 300) {
        failures = 0
        yield* SseBody.readSse(c.settings, opened.right, {
          onEvent: (event) => {
            if (event.data.length === 0) return
            const message = parseEvent(event.data)
            if (message === undefined) return false
            deliver(c, message)
          },
          onRetry: (millis) => (retryMillis = c.serverRetry = millis),
          lastEventId: (eventId) => (lastEventId = eventId),
          // Stopped for too long (answers to its requests not draining), it is re-opened as any dropped stream.
          backpressure: c.sink.backpressure
        }).pipe(Effect.ignore)
      } else {
        if (opened._tag === "Right") yield* Http.discard(opened.right)
        failures++
        if (Policies.getStreamGivesUp(failures)) {
          return yield* Effect.logWarning(
            `${c.settings.server}: GET stream failed ${failures} times in a row; giving up`
          )
        }
      }
      const delay = failures === 0
        ? Http.retryDelay(c.settings, retryMillis, Policies.sseReconnectDelay)
        : Policies.getStreamDelay(c.settings.retryBase, failures)
      yield* Effect.sleep(delay)
    }
  })
}
