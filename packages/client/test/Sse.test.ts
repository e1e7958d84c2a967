import { assert, describe, it } from "@effect/vitest"
import { createParser } from "eventsource-parser"
import type { SseEvent, SseParser, SseProblem } from "../src/internal/wire/sse.js"
import { makeSseParser } from "../src/internal/wire/sse.js"

interface Recorded {
  readonly parser: SseParser
  readonly events: Array<SseEvent>
  readonly retries: Array<number>
  readonly problems: Array<readonly [SseProblem, string]>
}

const record = (limits?: { readonly maxEventBytes?: number; readonly maxEventIdLength?: number }): Recorded => {
  const events: Array<SseEvent> = []
  const retries: Array<number> = []
  const problems: Array<readonly [SseProblem, string]> = []
  const parser = makeSseParser({
    maxEventBytes: limits?.maxEventBytes ?? 1024 * 1024,
    maxEventIdLength: limits?.maxEventIdLength ?? 256,
    onEvent: (event) => events.push(event),
    onRetry: (millis) => retries.push(millis),
    onProblem: (problem, detail) => problems.push([problem, detail])
  })
  return { parser, events, retries, problems }
}

const encoder = new TextEncoder()
const bytes = (text: string): Uint8Array => encoder.encode(text)

/** Feeds each piece as one chunk (strings are UTF-8 encoded) and returns what was recorded. */
const feed = (
  pieces: ReadonlyArray<string | Uint8Array>,
  limits?: { readonly maxEventBytes?: number; readonly maxEventIdLength?: number }
): Recorded => {
  const recorded = record(limits)
  for (const piece of pieces) recorded.parser.push(typeof piece === "string" ? bytes(piece) : piece)
  return recorded
}

const msg = (data: string, id?: string, event = "message"): SseEvent => ({ event, data, id })

/** Every split of `text` into byte-sized chunks of size `size`. */
const chunked = (text: string | Uint8Array, size: number): Array<Uint8Array> => {
  const all = typeof text === "string" ? bytes(text) : text
  const out: Array<Uint8Array> = []
  for (let i = 0; i < all.length; i += size) out.push(all.subarray(i, i + size))
  return out
}

describe("Sse", () => {
  describe("line endings", () => {
    for (const [name, eol] of [["LF", "\n"], ["CR", "\r"], ["CRLF", "\r\n"]] as const) {
      it(`splits lines on ${name}`, () => {
        const { events } = feed([`event: a${eol}data: 1${eol}data: 2${eol}${eol}data: 3${eol}${eol}`])
        assert.deepStrictEqual(events, [msg("1\n2", undefined, "a"), msg("3")])
      })
    }

    it("treats mixed line endings in one stream alike", () => {
      const { events } = feed(["data: a\rdata: b\ndata: c\r\n\ndata: d\r\r"])
      assert.deepStrictEqual(events, [msg("a\nb\nc"), msg("d")])
    })

    it("treats a CR ending one chunk and an LF starting the next as one line end", () => {
      const { events } = feed(["data: a\r", "\ndata: b\r", "\n\r", "\n"])
      assert.deepStrictEqual(events, [msg("a\nb")])
    })

    it("remembers a trailing CR across empty chunks", () => {
      const { events } = feed(["data: a\r", new Uint8Array(0), "\n", "\r", new Uint8Array(0), "\n"])
      assert.deepStrictEqual(events, [msg("a")])
    })

    it("ends a line at a CR ending a chunk even when the next chunk does not start with LF", () => {
      const { events } = feed(["data: a\r", "\r", "data: b\r", "\r"])
      assert.deepStrictEqual(events, [msg("a"), msg("b")])
    })

    it("gives the same events for every chunk size", () => {
      const stream = "\uFEFFretry: 10\r\n: hi\r\nevent: ünï\r\nid: 7\r\ndata: 😀 one\r\ndata\r\n\r\n" +
        "data: two\rid\r\r\ndata:x\n\n"
      const whole = feed([stream])
      assert.deepStrictEqual(whole.events, [msg("😀 one\n", "7", "ünï"), msg("two", ""), msg("x")])
      for (const size of [1, 2, 3, 5, 7, 13]) {
        const split = feed(chunked(stream, size))
        assert.deepStrictEqual(split.events, whole.events, `chunk size ${size}`)
        assert.deepStrictEqual(split.retries, [10])
      }
    })
  })

  describe("decoding", () => {
    it("strips one leading BOM", () => {
      assert.deepStrictEqual(feed(["\uFEFFdata: x\n\n"]).events, [msg("x")])
      // A second BOM belongs to the field name, which is then unknown.
      assert.deepStrictEqual(feed(["\uFEFF\uFEFFdata: x\n\ndata: y\n\n"]).events, [msg("y")])
    })

    it("strips a BOM split across chunks", () => {
      assert.deepStrictEqual(feed(chunked("\uFEFFdata: x\n\n", 1)).events, [msg("x")])
    })

    it("keeps a BOM that is not at the start of the stream", () => {
      assert.deepStrictEqual(feed(["\ndata: \uFEFFx\n\n"]).events, [msg("\uFEFFx")])
      assert.deepStrictEqual(feed(["\n\uFEFFdata: x\n\ndata: y\n\n"]).events, [msg("y")])
    })

    it("decodes characters split across chunks", () => {
      const { events } = feed(chunked("data: € 😀 ü\n\n", 1))
      assert.deepStrictEqual(events, [msg("€ 😀 ü")])
    })

    it("replaces invalid UTF-8 with U+FFFD, also right before a line end", () => {
      const invalid = Uint8Array.of(...bytes("data: a"), 0xff, ...bytes("b\n"), ...bytes("data: "), 0xe2, 0x82)
      const { events } = feed([invalid, "\r\n\r\n"])
      assert.deepStrictEqual(events, [msg("a\uFFFDb\n\uFFFD")])
    })
  })

  describe("fields", () => {
    it("ignores comment lines", () => {
      const { events } = feed([": keep-alive\n:\ndata: a\n: between\ndata: b\n\n"])
      assert.deepStrictEqual(events, [msg("a\nb")])
    })

    it("strips exactly one space after the colon", () => {
      const { events } = feed(["data:x\n\ndata:  x\n\ndata: \n\n"])
      assert.deepStrictEqual(events, [msg("x"), msg(" x"), msg("")])
    })

    it("reads a line without a colon as a field with an empty value", () => {
      const { events } = feed(["data\ndata\n\nevent\ndata: x\n\n"])
      assert.deepStrictEqual(events, [msg("\n"), msg("x")])
    })

    it("names events and resets the name after each dispatch", () => {
      const { events } = feed([
        "event: update\ndata: 1\n\ndata: 2\n\nevent:\ndata: 3\n\nevent: a\nevent: b\ndata: 4\n\n"
      ])
      assert.deepStrictEqual(events, [msg("1", undefined, "update"), msg("2"), msg("3"), msg("4", undefined, "b")])
    })

    it("ignores unknown fields and fields with leading spaces", () => {
      const { events } = feed(["foo: bar\n data: no\nDATA: no\ndata: yes\n\n"])
      assert.deepStrictEqual(events, [msg("yes")])
    })

    it("reports a valid retry value raw and ignores anything but ASCII digits", () => {
      const { events, retries } = feed([
        "retry: 3000\nretry: 0\nretry: 007\nretry: 3s\nretry: -1\nretry: 1.5\nretry:\nretry\nretry:  5\n",
        "retry: \uFF13\nretry: 99999999999999999999\ndata: x\n\n"
      ])
      assert.deepStrictEqual(retries, [3000, 0, 7, 1e20])
      assert.deepStrictEqual(events, [msg("x")])
    })
  })

  describe("ids", () => {
    it("attaches a valid id to its event only", () => {
      const { events, parser } = feed(["id: e-1\ndata: a\n\ndata: b\n\n"])
      assert.deepStrictEqual(events, [msg("a", "e-1"), msg("b")])
      assert.strictEqual(parser.lastEventId(), "e-1")
    })

    it("keeps the last of several ids in one event", () => {
      const { events, parser } = feed(["id: 1\nid: 2\ndata: a\n\n"])
      assert.deepStrictEqual(events, [msg("a", "2")])
      assert.strictEqual(parser.lastEventId(), "2")
    })

    it("updates the last event id only once the event is complete", () => {
      const { parser } = feed(["id: 1\ndata: a\n\nid: 2\ndata: b\n"])
      assert.strictEqual(parser.lastEventId(), "1")
      parser.push(bytes("\n"))
      assert.strictEqual(parser.lastEventId(), "2")
    })

    it("updates the last event id from an event without data, which is not dispatched", () => {
      const { events, parser } = feed(["id: 5\n\n"])
      assert.deepStrictEqual(events, [])
      assert.strictEqual(parser.lastEventId(), "5")
    })

    it("resets the last event id on an empty id field", () => {
      const { events, parser } = feed(["id: 5\ndata: a\n\nid\ndata: b\n\n"])
      assert.deepStrictEqual(events, [msg("a", "5"), msg("b", "")])
      assert.strictEqual(parser.lastEventId(), undefined)
    })

    it("rejects an id longer than the limit", () => {
      const { events, parser, problems } = feed([`id: ok\ndata: a\n\nid: ${"x".repeat(300)}\ndata: b\n\n`], {
        maxEventIdLength: 256
      })
      assert.deepStrictEqual(events, [msg("a", "ok"), msg("b")])
      assert.deepStrictEqual(problems, [["invalid-event-id", "length 300"]])
      assert.strictEqual(parser.lastEventId(), "ok")
    })

    it("accepts an id exactly at the limit", () => {
      const id = "x".repeat(8)
      const { events, problems } = feed([`id: ${id}\ndata: a\n\n`], { maxEventIdLength: 8 })
      assert.deepStrictEqual(events, [msg("a", id)])
      assert.deepStrictEqual(problems, [])
    })

    it("rejects an id with anything but printable ASCII", () => {
      for (const id of ["caf\u00e9", "a\tb", "a\u007fb", "a\u001bb", "😀"]) {
        const { events, parser, problems } = feed([`id: ok\n\nid: ${id}\ndata: a\n\n`])
        assert.deepStrictEqual(events, [msg("a")], JSON.stringify(id))
        assert.deepStrictEqual(problems, [["invalid-event-id", "non-printable"]])
        assert.strictEqual(parser.lastEventId(), "ok")
      }
    })

    it("ignores an id containing NUL and keeps an earlier valid id of the event", () => {
      const { events, parser, problems } = feed(["id: 1\nid: a\u0000b\ndata: a\n\n"])
      assert.deepStrictEqual(events, [msg("a", "1")])
      assert.deepStrictEqual(problems, [["invalid-event-id", "non-printable"]])
      assert.strictEqual(parser.lastEventId(), "1")
    })
  })

  describe("dispatch", () => {
    it("dispatches nothing for blank lines without data", () => {
      const { events } = feed(["\n\n\r\n\revent: x\n\n: c\n\n"])
      assert.deepStrictEqual(events, [])
    })

    it("dispatches an event whose only data line is empty", () => {
      assert.deepStrictEqual(feed(["data:\n\n"]).events, [msg("")])
    })

    it("does not carry data, name or id of one event into the next", () => {
      const { events } = feed(["event: e\nid: 1\ndata: a\n\ndata: b\n\n"])
      assert.deepStrictEqual(events, [msg("a", "1", "e"), msg("b")])
    })
  })

  describe("end", () => {
    it("drops an unterminated event", () => {
      for (const tail of ["data: x", "data: x\n", "data: x\r", "data: x\ndata: y"]) {
        const { events, parser } = feed(["data: a\n\n", tail])
        parser.end()
        assert.deepStrictEqual(events, [msg("a")], JSON.stringify(tail))
      }
    })

    it("does not commit the id of an unterminated event", () => {
      const { parser } = feed(["id: 1\ndata: a\n\nid: 2\ndata: b\n"])
      parser.end()
      assert.strictEqual(parser.lastEventId(), "1")
    })

    it("leaves the parser ready for a reconnection that keeps the last event id", () => {
      const { events, parser } = feed(["id: 1\ndata: a\n\ndata: lost", "\r"])
      parser.end()
      parser.push(bytes("\n\uFEFFdata: b\n\n"))
      // The stale CR does not swallow the new stream's first LF, and a BOM counts only at its start.
      assert.deepStrictEqual(events, [msg("a", "1")])
      parser.push(bytes("data: c\n\n"))
      parser.end()
      parser.push(bytes("\uFEFFdata: d\n\n"))
      assert.deepStrictEqual(events, [msg("a", "1"), msg("c"), msg("d")])
      assert.strictEqual(parser.lastEventId(), "1")
    })
  })

  describe("event size bound", () => {
    it("accepts an event exactly at the bound and rejects one byte more", () => {
      // "data: " + 10 bytes = 16 bytes of data line
      const atLimit = feed(["data: 0123456789\n\n"], { maxEventBytes: 16 })
      assert.deepStrictEqual(atLimit.events, [msg("0123456789")])
      assert.deepStrictEqual(atLimit.problems, [])
      const over = feed(["data: 0123456789a\n\ndata: ok\n\n"], { maxEventBytes: 16 })
      assert.deepStrictEqual(over.events, [msg("ok")])
      assert.deepStrictEqual(over.problems, [["event-too-large", "17 bytes"]])
    })

    it("counts all data lines of an event and skips the rest of it", () => {
      const big = "data: 0123456789\n".repeat(10)
      const { events, parser, problems } = feed(
        ["id: 1\ndata: a\n\n", `id: 2\n${big}event: x\ndata: more\nid: 3\n\n`, "data: b\n\n"],
        { maxEventBytes: 64 }
      )
      assert.deepStrictEqual(events, [msg("a", "1"), msg("b")])
      assert.deepStrictEqual(problems, [["event-too-large", "80 bytes"]])
      // The dropped event never moves Last-Event-ID.
      assert.strictEqual(parser.lastEventId(), "1")
    })

    it("bounds an unterminated line of any field", () => {
      const { events, problems } = feed(chunked(`: ${"c".repeat(200)}\ndata: b\n\n`, 7), { maxEventBytes: 64 })
      assert.deepStrictEqual(events, [])
      assert.deepStrictEqual(problems.map(([p]) => p), ["event-too-large"])
    })

    it("reports each oversized event once", () => {
      const { events, problems } = feed(
        chunked(`data: ${"x".repeat(100)}\n\ndata: ${"y".repeat(100)}\n\ndata: z\n\n`, 9),
        {
          maxEventBytes: 32
        }
      )
      assert.deepStrictEqual(events, [msg("z")])
      assert.deepStrictEqual(problems.map(([p]) => p), ["event-too-large", "event-too-large"])
    })

    it("keeps multi-byte lines in step when an event in the middle of a chunk is skipped", () => {
      const { events, problems } = feed([
        `data: é\r\n\r\ndata: ${"€".repeat(20)}\r\nid: 9\r\n\r\nid: 1\r\ndata: ü😀\r\n\r\n`
      ], {
        maxEventBytes: 32
      })
      assert.deepStrictEqual(events, [msg("é"), msg("ü😀", "1")])
      assert.deepStrictEqual(problems, [["event-too-large", "66 bytes"]])
    })

    it("discards a 50 MiB unterminated event in bounded memory and time, then parses the next event", () => {
      const { events, parser, problems } = record({ maxEventBytes: 1024 * 1024 })
      const chunk = new Uint8Array(64 * 1024).fill(0x61) // "a"
      const heapBefore = process.memoryUsage().heapUsed
      parser.push(bytes("id: 1\ndata: "))
      for (let sent = 0; sent < 50 * 1024 * 1024; sent += chunk.length) parser.push(chunk)
      const heapGrowth = process.memoryUsage().heapUsed - heapBefore
      parser.push(bytes("\ndata: still skipped\n\nid: 2\ndata: next\n\n"))
      assert.deepStrictEqual(events, [msg("next", "2")])
      assert.deepStrictEqual(problems.map(([p]) => p), ["event-too-large"])
      assert.strictEqual(parser.lastEventId(), "2")
      assert.isBelow(heapGrowth, 24 * 1024 * 1024)
    })

    it("parses a large event arriving in many small chunks in linear time", () => {
      const size = 8 * 1024 * 1024
      const { events, problems, parser } = record({ maxEventBytes: 16 * 1024 * 1024 })
      const chunk = new Uint8Array(1024).fill(0x62) // "b"
      parser.push(bytes("data: "))
      for (let sent = 0; sent < size; sent += chunk.length) parser.push(chunk)
      parser.push(bytes("\n\n"))
      assert.deepStrictEqual(problems, [])
      assert.strictEqual(events.length, 1)
      assert.strictEqual(events[0]!.data.length, size)
      assert.isTrue(events[0]!.data === "b".repeat(size))
      // 8192 chunks: rescanning the pending line per chunk would scan ~32 GiB.
    })
  })

  describe("differential against eventsource-parser", () => {
    // mulberry32: small, fast, deterministic
    const rng = (seed: number) => () => {
      seed = (seed + 0x6d2b79f5) | 0
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296
    }

    const alphabet = ["a", "b", "z", " ", ":", "0", "9", "é", "€", "😀", "\t", "{", "\"", "\u0000", "\uFEFF"]
    const printable = ["a", "Z", "0", "-", "_", " ", ":", "~", "/"]

    const generate = (random: () => number): string => {
      const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
      const text = (chars: ReadonlyArray<string>, max: number) => {
        let out = ""
        const length = Math.floor(random() * (max + 1))
        for (let i = 0; i < length; i++) out += pick(chars)
        return out
      }
      const lines: Array<() => string> = [
        () => `data: ${text(alphabet, 12)}`,
        () => `data:${text(alphabet, 12)}`,
        () => "data",
        () => `event: ${text(printable, 6)}`,
        () => "event:",
        () => `id: ${text(printable, 10)}`,
        () => "id",
        () => `id: a\u0000${text(printable, 3)}`,
        () => `retry: ${Math.floor(random() * 100_000)}`,
        () => `retry: ${text(["1", "2", "x", "-", " "], 4)}`,
        () => `: ${text(alphabet, 10)}`,
        () => `unknown: ${text(alphabet, 5)}`,
        () => text(["x", "y", "\u00e9"], 5),
        () => " data: leading space",
        () => "",
        () => ""
      ]
      let out = random() < 0.2 ? "\uFEFF" : ""
      const count = Math.floor(random() * 40)
      for (let i = 0; i < count; i++) out += pick(lines)() + pick(["\n", "\r", "\r\n"])
      // eventsource-parser handles a CR only once a later chunk holds another CR or LF (the CR might
      // start a CRLF), so a stream whose last line end is a lone CR would look unfinished to it.
      if (out.endsWith("\r")) out += "\n"
      if (random() < 0.3) out += pick(lines)() // an unterminated tail
      return out
    }

    const splitAt = <A extends string | Uint8Array>(input: A, random: () => number, maxSize: number): Array<A> => {
      const out: Array<A> = []
      let pos = 0
      while (pos < input.length) {
        const size = random() < 0.1 ? 0 : 1 + Math.floor(random() * maxSize)
        out.push(input.slice(pos, pos + size) as A)
        pos += size
      }
      return out
    }

    it("yields the same events and retries for random streams split at random points", () => {
      const random = rng(0x5eed)
      for (let round = 0; round < 3_000; round++) {
        const input = generate(random)
        // Small chunks split lines and characters; large ones put many lines in one chunk.
        const maxSize = [4, 32, 1_000_000][round % 3]!

        const ours = record()
        for (const chunk of splitAt(bytes(input), random, maxSize)) ours.parser.push(chunk)
        ours.parser.end()

        const expectedEvents: Array<SseEvent> = []
        const expectedRetries: Array<number> = []
        const oracle = createParser({
          onEvent: (event) => expectedEvents.push({ event: event.event ?? "message", data: event.data, id: event.id }),
          onRetry: (millis) => expectedRetries.push(millis)
        })
        // The oracle looks for a BOM's bytes, not the decoded U+FEFF: give it the stream without one.
        const decoded = input.startsWith("\uFEFF") ? input.slice(1) : input
        for (const chunk of splitAt(decoded, random, maxSize)) oracle.feed(chunk)

        assert.deepStrictEqual(ours.events, expectedEvents, JSON.stringify(input))
        assert.deepStrictEqual(ours.retries, expectedRetries, JSON.stringify(input))
        assert.deepStrictEqual(
          ours.problems.map(([p]) => p).filter((p) => p !== "invalid-event-id"),
          [],
          JSON.stringify(input)
        )
      }
    })
  })
})
