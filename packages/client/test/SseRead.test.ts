/**
 * `readSse`, the SSE reader every HTTP transport uses: caps per event, never per stream; oversized
 * events skipped; streams of garbage closed. Responses are built in memory (no sockets).
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import { RawBodiesTypeId } from "../src/Http.js"
import * as Http from "../src/internal/http/http.js"
import * as SseBody from "../src/internal/http/sseBody.js"
import * as Limits from "../src/internal/limits.js"
import type { SseEvent } from "../src/internal/wire/sse.js"
import { ConnectionError, ResponseTooLargeError } from "../src/McpError.js"

const KiB = 1024
const MiB = 1024 * KiB
const encoder = new TextEncoder()

// The bodies below come as sent (gzip'd ones still gzip'd), as from a client that does not decode.
const unused = Object.assign(HttpClient.make(() => Effect.die("no requests in these tests")), {
  [RawBodiesTypeId]: true
})

const settingsFor = (cap: number) =>
  Effect.provideService(Http.settings("srv", { maxDecompressedBodyBytes: cap }), HttpClient.HttpClient, unused)

interface Body {
  readonly chunks: Iterable<Uint8Array>
  /** Keeps the body open after its chunks (a stream the server never ends). */
  readonly open?: boolean
  readonly gzip?: boolean
  /** Counts the bytes the reader pulled (before compression). */
  readonly pulled?: { bytes: number }
}

const response = (body: Body) => {
  const iterator = body.chunks[Symbol.iterator]()
  const readable = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = iterator.next()
      if (next.done) {
        if (body.open === true) return new Promise(() => {})
        return controller.close()
      }
      if (body.pulled !== undefined) body.pulled.bytes += next.value.length
      controller.enqueue(next.value)
    }
  }, { highWaterMark: 0 })
  const source = body.gzip !== true ? readable : readable.pipeThrough(new CompressionStream("gzip"))
  return HttpClientResponse.fromWeb(
    HttpClientRequest.get("http://127.0.0.1/mcp"),
    new Response(source, {
      headers: { "content-type": "text/event-stream", ...(body.gzip === true ? { "content-encoding": "gzip" } : {}) }
    })
  )
}

const event = (data: string) => encoder.encode(`data: ${data}\n\n`)
const message = (i: number, pad = 0) =>
  JSON.stringify({
    jsonrpc: "2.0",
    method: "notifications/resources/updated",
    params: { uri: `x://${i}`, pad: "p".repeat(pad) }
  })

/** Reads `body` with the event cap `cap`, collecting events (JSON ones usable, others not) and logs. */
const read = (cap: number, body: Body, extra: Partial<SseBody.SseReadOptions> = {}) =>
  Effect.gen(function*() {
    const events: Array<SseEvent> = []
    const logs: Array<string> = []
    const s = yield* settingsFor(cap)
    const logger = Logger.make(({ message }) => logs.push(Array.isArray(message) ? message.join(" ") : String(message)))
    const fiber = yield* Effect.fork(
      SseBody.readSse(s, response(body), {
        onEvent: (e) => {
          try {
            JSON.parse(e.data)
          } catch {
            return false
          }
          events.push(e)
        },
        onRetry: () => {},
        lastEventId: () => {},
        ...extra
      }).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
    )
    return { fiber, events, logs }
  })

function* repeat<A>(times: number, f: (i: number) => A): Generator<A> {
  for (let i = 0; i < times; i++) yield f(i)
}

describe("readSse", () => {
  describe("caps per event, not per stream", () => {
    for (const gzip of [false, true]) {
      it.live(`reads 16 × the event cap in small events to the end${gzip ? ", gzip'd" : ""}`, () =>
        Effect.gen(function*() {
          // 4 MiB in ~4 KiB events under a 256 KiB cap.
          const { events, fiber, logs } = yield* read(256 * KiB, {
            chunks: repeat(1024, (i) => event(message(i, 4000))),
            gzip
          })
          yield* Fiber.join(fiber)
          assert.strictEqual(events.length, 1024)
          assert.strictEqual(JSON.parse(events[1023]!.data).params.uri, "x://1023")
          assert.deepStrictEqual(logs, [])
        }))
    }

    it.effect("keeps the total cap of a JSON body", () =>
      Effect.gen(function*() {
        const s = yield* settingsFor(1 * KiB)
        const body = HttpClientResponse.fromWeb(
          HttpClientRequest.get("http://127.0.0.1/mcp"),
          new Response(new Blob(["[", "1,".repeat(1000), "1]"]).stream(), {
            headers: { "content-type": "application/json" }
          })
        )
        const error = yield* Effect.flip(Http.readText(s, body))
        assert.instanceOf(error, ResponseTooLargeError)
      }))
  })

  describe("an oversized event", () => {
    for (const gzip of [false, true]) {
      it.live(`is skipped and the stream goes on, logged once with a count at the end${gzip ? ", gzip'd" : ""}`, () =>
        Effect.gen(function*() {
          const huge = JSON.stringify({ jsonrpc: "2.0", method: "m".repeat(MiB) })
          const chunks = [
            event(message(1)),
            ...chunk(event(huge), 64 * KiB),
            event(message(2)),
            event(huge),
            event(message(3))
          ]
          const { events, fiber, logs } = yield* read(256 * KiB, { chunks, gzip })
          yield* Fiber.join(fiber)
          assert.deepStrictEqual(events.map((e) => JSON.parse(e.data).params.uri), ["x://1", "x://2", "x://3"])
          assert.strictEqual(logs.length, 2)
          assert.include(logs[0], "skipped an event over the 262144-byte cap")
          assert.include(logs[1], "skipped 2 events over the cap")
          // Nothing of the event's content reaches the log.
          assert.notInclude(logs.join(""), "mmmm")
        }))
    }

    it.live("on a POST reply ends the read at once with ResponseTooLargeError, past the cap by one chunk at most", () =>
      Effect.gen(function*() {
        // `data: ` and then an endless line: waiting for the event's end would read for ever.
        const filler = new Uint8Array(64 * KiB).fill(0x72)
        const pulled = { bytes: 0 }
        const endless = function*() {
          yield event(message(1))
          yield encoder.encode(`data: {"jsonrpc":"2.0","id":7,"result":{"text":"`)
          for (;;) yield filler
        }
        const { events, fiber, logs } = yield* read(256 * KiB, { chunks: endless(), pulled }, { responseId: 7 })
        const error = yield* Effect.flip(Fiber.join(fiber))
        assert.instanceOf(error, ResponseTooLargeError)
        assert.strictEqual(error.limit, 256 * KiB)
        assert.strictEqual(events.length, 1)
        assert.isAtMost(pulled.bytes, 256 * KiB + 2 * filler.length)
        assert.include(logs[0], "skipped an event over the 262144-byte cap")
      }))

    it.live("on a POST reply fails the read whatever the event was (a notification too)", () =>
      Effect.gen(function*() {
        const huge = JSON.stringify({ jsonrpc: "2.0", method: "m".repeat(MiB) })
        const { fiber } = yield* read(256 * KiB, { chunks: [event(huge), event(message(1))], open: true }, {
          responseId: 7
        })
        const error = yield* Effect.flip(Fiber.join(fiber))
        assert.instanceOf(error, ResponseTooLargeError)
      }))
  })

  describe("a stream of garbage", () => {
    it.live(`is closed after more than ${Limits.MAX_UNUSABLE_SSE_EVENTS} unusable events in a row`, () =>
      Effect.gen(function*() {
        const { events, fiber, logs } = yield* read(256 * KiB, {
          chunks: [event(message(1)), ...repeat(Limits.MAX_UNUSABLE_SSE_EVENTS + 1, () => event("not json"))],
          open: true
        })
        const error = yield* Effect.flip(Fiber.join(fiber))
        assert.instanceOf(error, ConnectionError)
        assert.strictEqual(events.length, 1)
        assert.include(logs.at(-1), `closed after ${Limits.MAX_UNUSABLE_SSE_EVENTS + 1} unusable events`)
        // Each kind of problem is logged once, then counted.
        assert.strictEqual(logs.filter((line) => line.includes("skipped a malformed message")).length, 1)
        assert.include(logs.at(-1), `${Limits.MAX_UNUSABLE_SSE_EVENTS + 1} malformed messages`)
      }))

    it.live("is not closed while usable events come between the unusable ones", () =>
      Effect.gen(function*() {
        const chunks = repeat(4 * Limits.MAX_UNUSABLE_SSE_EVENTS, (i) => event(i % 16 === 0 ? message(i) : "not json"))
        const { events, fiber } = yield* read(256 * KiB, { chunks })
        yield* Fiber.join(fiber)
        assert.strictEqual(events.length, 8)
      }))

    for (const reply of [false, true]) {
      it.live(`is closed after an endless oversized event once its skipped bytes pass the limit${reply ? ", as too large on a POST reply" : ""}`, () =>
        Effect.gen(function*() {
          const filler = new Uint8Array(64 * KiB).fill(0x78)
          const limit = Limits.MAX_SKIPPED_SSE_BYTES
          const { fiber } = yield* read(256 * KiB, {
            chunks: [encoder.encode("data: "), ...repeat(limit / filler.length + 2, () => filler)],
            open: true
          }, reply ? { responseId: 7 } : {})
          const error = yield* Effect.flip(Fiber.join(fiber))
          // A GET or listen stream fails as a dropped one would, so that its owner re-opens it.
          assert.strictEqual(error._tag, reply ? "ResponseTooLargeError" : "ConnectionError")
        }))
    }
  })
})

function chunk(bytes: Uint8Array, size: number): Array<Uint8Array> {
  const out: Array<Uint8Array> = []
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size))
  return out
}
