/**
 * Properties of the byte-level readers and the header encoder, checked with fast-check: a split
 * of the input into chunks never changes what comes out, arbitrary bytes fail only with the typed
 * outcomes and never exceed the caps, and encoded values decode back.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { assert, describe, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import * as Zlib from "node:zlib"
import * as HeaderParams from "../src/HeaderParams.js"
import { BodyReaderTypeId } from "../src/internal/http/bodyReader.js"
import * as Http from "../src/internal/http/http.js"
import { decompressBody } from "../src/internal/wire/decompress.js"
import { makeLineDecoder } from "../src/internal/wire/ndjson.js"
import { makeSseParser } from "../src/internal/wire/sse.js"
import type { SseEvent } from "../src/internal/wire/sse.js"

// PROPERTY_RUNS=5000 searches harder (the suite keeps runs few, for time).
const RUNS = { numRuns: Number(process.env.PROPERTY_RUNS ?? 150) }
const encoder = new TextEncoder()

/** `bytes` cut at the given positions (any numbers: taken modulo the length, sorted). */
const split = (bytes: Uint8Array, cuts: ReadonlyArray<number>): Array<Uint8Array> => {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Array<Uint8Array> = []
  let from = 0
  for (const cut of [...at, bytes.length]) {
    chunks.push(bytes.subarray(from, cut))
    from = cut
  }
  return chunks
}

const cuts = fc.array(fc.nat(), { maxLength: 24 })

/** Bytes biased towards what the readers look for (line ends, colons, field names, multi-byte UTF-8). */
const hostileBytes = fc
  .array(
    fc.oneof(
      fc.constantFrom(..."data: ", "\n", "\r", "\r\n", "event:", "id:", "retry: 7", ": c", "{}", "😀", "\uFEFF").map((
        t
      ) => Array.from(encoder.encode(t))),
      fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 8 })
    ),
    { maxLength: 60 }
  )
  .map((parts) => Uint8Array.from(parts.flat()))

describe("properties", () => {
  describe("SSE parser", () => {
    const MAX_EVENT = 48
    const MAX_ID = 8
    const run = (chunks: ReadonlyArray<Uint8Array>) => {
      const events: Array<SseEvent> = []
      const retries: Array<number> = []
      const problems: Array<string> = []
      const parser = makeSseParser({
        maxEventBytes: MAX_EVENT,
        maxEventIdLength: MAX_ID,
        onEvent: (event) => events.push(event),
        onRetry: (millis) => retries.push(millis),
        // The detail ("N bytes so far") depends on where the event crossed the cap; the kind and
        // the head of a skipped event do not.
        onProblem: (problem, _, head) => problems.push(`${problem} ${JSON.stringify(head)}`)
      })
      const ids: Array<string | undefined> = []
      for (const chunk of chunks) {
        parser.push(chunk)
        ids.push(parser.lastEventId())
      }
      const lastId = parser.lastEventId()
      parser.end()
      return { events, retries, problems, lastId, skipped: parser.skippedBytes() }
    }

    const line = fc.tuple(
      fc.constantFrom("data", "event", "id", "retry", "", ":", "dat", "\uFEFFdata"),
      fc.constantFrom(":", ": ", "", ":  "),
      fc.oneof(fc.string({ maxLength: 12, unit: "binary" }), fc.constantFrom("", "x".repeat(60), "42", "é€😀")),
      fc.constantFrom("\n", "\r", "\r\n", "\n\n", "\r\r")
    ).map((parts) => parts.join(""))
    const stream = fc.array(line, { maxLength: 30 }).map((lines) => encoder.encode(lines.join("")))

    it("gives the same events for any split of a stream of SSE lines", () =>
      fc.assert(
        fc.property(stream, cuts, (bytes, at) => {
          assert.deepStrictEqual(run(split(bytes, at)), run([bytes]))
        }),
        RUNS
      ))

    it("never throws on arbitrary bytes, keeps events and ids within the caps, whatever the split", () =>
      fc.assert(
        fc.property(hostileBytes, cuts, (bytes, at) => {
          const whole = run([bytes])
          assert.deepStrictEqual(run(split(bytes, at)), whole)
          for (const event of whole.events) {
            // At most one UTF-16 unit per byte received, so within the byte cap.
            assert.isAtMost(event.data.length, MAX_EVENT)
            if (event.id !== undefined) assert.isAtMost(event.id.length, MAX_ID)
          }
          assert.isAtMost(whole.skipped, bytes.length)
        }),
        RUNS
      ))
  })

  describe("NDJSON framer", () => {
    const MAX_LINE = 64
    const run = (chunks: ReadonlyArray<Uint8Array>) => {
      const out: Array<unknown> = []
      const decoder = makeLineDecoder(MAX_LINE, {
        onValue: (value) => out.push({ value }),
        onMalformed: (reason, bytes, excerpt) => out.push({ reason, bytes, excerpt })
      })
      for (const chunk of chunks) decoder.push(chunk)
      decoder.end()
      return out
    }

    it("gives the same values for any split of a stream of JSON lines, and they are the values sent", () =>
      fc.assert(
        fc.property(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 12 }), cuts, (values, at) => {
          const bytes = encoder.encode(values.map((v) => JSON.stringify(v) + "\n").join(""))
          const whole = run([bytes])
          assert.deepStrictEqual(run(split(bytes, at)), whole)
          const expected = values.map((v) => JSON.parse(JSON.stringify(v)))
          const kept = whole.flatMap((o) => ("value" in (o as object) ? [(o as { value: unknown }).value] : []))
          // Lines over the cap are reported instead; the others come out unchanged and in order.
          assert.deepStrictEqual(
            kept,
            expected.filter((v) => encoder.encode(JSON.stringify(v)).length <= MAX_LINE)
          )
        }),
        RUNS
      ))

    it("never throws on arbitrary bytes; reports only the typed reasons, whatever the split", () =>
      fc.assert(
        fc.property(hostileBytes, cuts, (bytes, at) => {
          const whole = run([bytes])
          assert.deepStrictEqual(run(split(bytes, at)), whole)
          for (const o of whole as Array<{ reason?: string; bytes?: number }>) {
            if (o.reason === "too-long") assert.isAbove(o.bytes!, MAX_LINE)
            else if (o.reason !== undefined) assert.strictEqual(o.reason, "invalid-json")
          }
        }),
        RUNS
      ))
  })

  describe("header-parameter encoder", () => {
    /** What a server does with an `Mcp-Param-*` value. */
    const decode = (header: string): string => {
      const match = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(header)
      return match === null ? header : Buffer.from(match[1]!, "base64").toString("utf8")
    }

    it("round-trips any string through a valid header value (lone surrogates become U+FFFD)", () =>
      fc.assert(
        fc.property(
          fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: "binary-ascii" }), fc.string()),
          (value) => {
            const header = HeaderParams.encodeValue(value)
            assert.match(header, /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/)
            assert.strictEqual(decode(header), Buffer.from(value, "utf8").toString("utf8"))
          }
        ),
        RUNS
      ))

    it("leaves a value that looks encoded unambiguous", () =>
      fc.assert(
        fc.property(fc.base64String(), (payload) => {
          const tricky = `=?base64?${payload}?=`
          assert.strictEqual(decode(HeaderParams.encodeValue(tricky)), tricky)
        }),
        RUNS
      ))
  })

  describe("capped body reader", () => {
    const unused = HttpClient.make(() => Effect.die("no requests"))
    const settingsFor = (cap: number) =>
      Effect.provideService(Http.settings("srv", { maxDecompressedBodyBytes: cap }), HttpClient.HttpClient, unused)
    const request = HttpClientRequest.get("http://127.0.0.1/mcp")

    /** A response streaming `chunks`; with `reader`, also offering them through the BodyReader fast path. */
    const response = (chunks: ReadonlyArray<Uint8Array>, reader: boolean, headers: Record<string, string> = {}) => {
      let i = 0
      const web = HttpClientResponse.fromWeb(
        request,
        new Response(
          new ReadableStream<Uint8Array>({
            pull: (controller) => (i < chunks.length ? controller.enqueue(chunks[i++]) : controller.close())
          }),
          { headers: { "content-type": "application/json", ...headers } }
        )
      )
      if (!reader) return web
      return Object.assign(Object.create(web) as HttpClientResponse.HttpClientResponse, {
        [BodyReaderTypeId]: (onChunk: (chunk: Uint8Array) => boolean) =>
          Effect.sync(() => {
            for (const chunk of chunks) if (!onChunk(chunk)) return
          })
      })
    }

    const body = fc.uint8Array({ maxLength: 400 })
    const cap = fc.integer({ min: 0, max: 500 })

    for (const reader of [false, true]) {
      it(`reads the exact body under the cap and fails past it with ResponseTooLargeError (${reader ? "chunk callback" : "stream"})`, () =>
        fc.assert(
          fc.asyncProperty(body, cuts, cap, async (bytes, at, limit) => {
            const result = await Effect.runPromise(
              Effect.either(
                Effect.flatMap(settingsFor(limit), (s) => Http.readText(s, response(split(bytes, at), reader)))
              )
            )
            if (bytes.length <= limit) {
              assert.deepStrictEqual(result, Either.right(new TextDecoder().decode(bytes)))
            } else {
              assert.isTrue(Either.isLeft(result) && result.left._tag === "ResponseTooLargeError")
            }
          }),
          RUNS
        ))
    }

    it("inflates gzip split anywhere to the exact bytes under the cap, and fails past it as too large", () =>
      fc.assert(
        fc.asyncProperty(body, cuts, cap, async (bytes, at, limit) => {
          const gzipped = new Uint8Array(Zlib.gzipSync(bytes))
          const result = await Effect.runPromise(Effect.either(Stream.runCollect(
            decompressBody(Stream.fromIterable(split(gzipped, at)), "gzip", limit, (reason) => reason)
          )))
          if (bytes.length <= limit) {
            assert.isTrue(Either.isRight(result))
            const out = Buffer.concat(Chunk.toArray(Either.getOrThrow(result)))
            assert.deepStrictEqual(new Uint8Array(out), bytes)
          } else {
            assert.deepStrictEqual(result, Either.left("too-large"))
          }
        }),
        { numRuns: Math.ceil(RUNS.numRuns / 1.5) }
      ))

    it("fails arbitrary bytes sent as gzip or deflate only with a typed reason, never past the cap", () =>
      fc.assert(
        fc.asyncProperty(hostileBytes, cuts, fc.constantFrom("gzip", "deflate"), async (bytes, at, coding) => {
          const result = await Effect.runPromise(Effect.either(Stream.runCollect(
            decompressBody(Stream.fromIterable(split(bytes, at)), coding, 256, (reason) => reason)
          )))
          if (Either.isLeft(result)) assert.oneOf(result.left, ["corrupt", "too-large"])
          else assert.isAtMost(Chunk.reduce(result.right, 0, (n, c) => n + c.length), 256)
        }),
        { numRuns: Math.ceil(RUNS.numRuns / 1.5) }
      ))
  })
})
