import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { deflateSync, gzipSync } from "node:zlib"
import { concatBytes } from "../src/internal/bytes.js"
import type { DecompressFailure, Format, InflaterStreams } from "../src/internal/wire/decompress.js"
import { decompressBody, inflaterStreams } from "../src/internal/wire/decompress.js"

class BodyError {
  readonly _tag = "BodyError"
}

class Failed {
  readonly _tag = "Failed"
  constructor(readonly reason: DecompressFailure, readonly limit: number) {}
}

const onError = (reason: DecompressFailure, limit: number) => new Failed(reason, limit)

const chunks = (bytes: Uint8Array, size: number): Stream.Stream<Uint8Array, BodyError> => {
  const out: Array<Uint8Array> = []
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size))
  return Stream.fromIterable(out)
}

const concat = (parts: Chunk.Chunk<Uint8Array>): Uint8Array =>
  concatBytes(Chunk.toReadonlyArray(parts), Chunk.reduce(parts, 0, (n, part) => n + part.length))

const text = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  result: { content: Array.from({ length: 2000 }, (_, i) => ({ type: "text", text: `line ${i} ünïcödé` })) }
})
const plain = new TextEncoder().encode(text)

const decode = (
  body: Stream.Stream<Uint8Array, BodyError>,
  encoding: string | undefined,
  maxBytes = 16 * 1024 * 1024,
  makeInflater?: (format: Format) => InflaterStreams
) => Effect.map(Stream.runCollect(decompressBody(body, encoding, maxBytes, onError, makeInflater)), concat)

/** The typed failure of `effect`; a defect or success fails the test. */
const failure = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    assert.isTrue(Exit.isFailure(exit), "expected a failure")
    if (Exit.isSuccess(exit)) throw new Error("unreachable")
    const error = Cause.failureOption(exit.cause)
    assert.isTrue(Option.isSome(error), `expected a typed failure, got ${Cause.pretty(exit.cause)}`)
    return Option.getOrThrow(error)
  })

type Backend = "node:zlib" | "DecompressionStream"

interface Spy {
  /** Per inflater: its readable cancelled; its writable aborted, or failed by the inflater's end. */
  readonly created: Array<{ cancelled: boolean; released: boolean }>
  readonly backends: Array<Backend>
  /** The decompressor's own inflaters (Node's zlib where the runtime has it), recorded. */
  readonly inflater: (format: Format) => InflaterStreams
}

interface Pair {
  readonly readable: ReadableStream<Uint8Array>
  readonly writable: WritableStream<Uint8Array>
}

/**
 * `real`, behind ends that record in `record` whether its readable was cancelled and its writable
 * released (aborted, or failed because cancelling the readable ended the inflater).
 */
const recorded = (real: Pair, record: Spy["created"][number]): Pair => {
  const reader = real.readable.getReader()
  const writer = real.writable.getWriter()
  return {
    readable: new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const result = await reader.read()
        if (result.done) controller.close()
        else controller.enqueue(result.value)
      },
      cancel: (reason) => {
        record.cancelled = true
        return reader.cancel(reason)
      }
    }, { highWaterMark: 0 }),
    writable: new WritableStream<Uint8Array>({
      write: (chunk) =>
        writer.write(chunk).catch((error: unknown) => {
          record.released = true
          throw error
        }),
      close: () => writer.close(),
      abort: (reason) => {
        record.released = true
        return writer.abort(reason)
      }
    })
  }
}

/**
 * Records, for the scope, each inflater made: by the global DecompressionStream, or by
 * `spy.inflater` (Node's zlib, where the runtime has it), which the test passes in.
 */
const spyInflaters: Effect.Effect<Spy, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => {
    const Real = globalThis.DecompressionStream
    const created: Spy["created"] = []
    const backends: Spy["backends"] = []
    const wrap = (backend: Backend, real: Pair): Pair => {
      const record = { cancelled: false, released: false }
      created.push(record)
      backends.push(backend)
      return recorded(real, record)
    }
    class SpyStream {
      readonly readable: ReadableStream<Uint8Array>
      readonly writable: WritableStream<Uint8Array>
      constructor(format: "gzip" | "deflate" | "deflate-raw") {
        const { readable, writable } = wrap("DecompressionStream", new Real(format))
        this.readable = readable
        this.writable = writable
      }
    }
    globalThis.DecompressionStream = SpyStream as unknown as typeof DecompressionStream
    const spy: Spy = { created, backends, inflater: (format) => wrap("node:zlib", inflaterStreams(format)) }
    return { spy, Real }
  }),
  ({ Real }) =>
    Effect.sync(() => {
      globalThis.DecompressionStream = Real
    })
).pipe(Effect.map(({ spy }) => spy))

/**
 * Lets promise callbacks already queued run: a write the inflater was working on fails when its
 * readable is cancelled, one promise callback after the stream's end.
 */
const promiseCallbacks = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 0)))

/** Hides `process.getBuiltinModule` for the scope, as in a runtime without Node's built-ins. */
const withoutNodeBuiltins: Effect.Effect<void, never, Scope.Scope> = Effect.asVoid(Effect.acquireRelease(
  Effect.sync(() => {
    const real = process.getBuiltinModule
    Object.assign(process, { getBuiltinModule: undefined })
    return real
  }),
  (real) => Effect.sync(() => Object.assign(process, { getBuiltinModule: real }))
))

describe("Decompress", () => {
  describe("decoding", () => {
    for (const encoding of ["gzip", "x-gzip", "GZip", " gzip ", "identity, gzip"]) {
      it.effect(`inflates gzip labelled ${JSON.stringify(encoding)}`, () =>
        Effect.gen(function*() {
          const gzipped = gzipSync(plain)
          for (const size of [1, 7, 4096, gzipped.length]) {
            const out = yield* decode(chunks(gzipped, size), encoding)
            assert.deepStrictEqual(out, plain, `chunk size ${size}`)
          }
        }))
    }

    it.effect("inflates deflate (zlib format)", () =>
      Effect.gen(function*() {
        const deflated = deflateSync(plain)
        for (const size of [1, 13, deflated.length]) {
          assert.deepStrictEqual(yield* decode(chunks(deflated, size), "deflate"), plain)
        }
      }))

    it.effect("inflates a multi-member gzip body", () =>
      Effect.gen(function*() {
        const body = Buffer.concat([gzipSync(plain), gzipSync(new Uint8Array(0)), gzipSync(plain)])
        for (const size of [7, 1000, body.length]) {
          const out = yield* decode(chunks(body, size), "gzip")
          assert.deepStrictEqual(out, Buffer.concat([plain, plain]), `chunk size ${size}`)
        }
      }))

    it.scoped("falls back to DecompressionStream where Node's built-ins are missing", () =>
      Effect.gen(function*() {
        yield* withoutNodeBuiltins
        const spy = yield* spyInflaters
        assert.deepStrictEqual(yield* decode(chunks(gzipSync(plain), 512), "gzip"), plain)
        assert.deepStrictEqual(yield* decode(chunks(deflateSync(plain), 512), "deflate"), plain)
        const error = yield* failure(decode(chunks(gzipSync(plain), 512), "gzip", 1000))
        assert.deepStrictEqual(error, new Failed("too-large", 1000))
        assert.deepStrictEqual(spy.backends, ["DecompressionStream", "DecompressionStream", "DecompressionStream"])
      }))

    it.effect("passes an identity body through chunk by chunk", () =>
      Effect.gen(function*() {
        for (const encoding of [undefined, "identity", "IDENTITY", ""]) {
          const parts = yield* Stream.runCollect(decompressBody(chunks(plain, 1000), encoding, plain.length, onError))
          assert.deepStrictEqual(concat(parts), plain)
          assert.strictEqual(Chunk.size(parts), Math.ceil(plain.length / 1000))
        }
      }))

    it.effect("decodes an empty gzip body and an empty identity body", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* decode(Stream.make(gzipSync(new Uint8Array(0))), "gzip"), new Uint8Array(0))
        assert.deepStrictEqual(yield* decode(Stream.empty, undefined), new Uint8Array(0))
      }))
  })

  describe("cap", () => {
    it.effect("delivers exactly maxBytes and fails one byte beyond, gzip and identity alike", () =>
      Effect.gen(function*() {
        for (const encoding of ["gzip", undefined]) {
          const body = encoding === "gzip" ? gzipSync(plain) : plain
          assert.deepStrictEqual(yield* decode(chunks(body, 512), encoding, plain.length), plain)
          const error = yield* failure(decode(chunks(body, 512), encoding, plain.length - 1))
          assert.deepStrictEqual(error, new Failed("too-large", plain.length - 1))
        }
      }))

    it.effect("counts across gzip members, failing in the member that crosses the cap", () =>
      Effect.gen(function*() {
        const body = Buffer.concat([gzipSync(plain), gzipSync(plain)])
        const both = Buffer.concat([plain, plain])
        assert.deepStrictEqual(yield* decode(chunks(body, 512), "gzip", both.length), both)
        const error = yield* failure(decode(chunks(body, 512), "gzip", plain.length + 1))
        assert.deepStrictEqual(error, new Failed("too-large", plain.length + 1))
      }))

    it.effect("stops an identity body as soon as the count exceeds the cap", () =>
      Effect.gen(function*() {
        const pulled = yield* Ref.make(0)
        const endless = Stream.repeatValue(new Uint8Array(1024)).pipe(
          Stream.tap(() => Ref.update(pulled, (n) => n + 1))
        )
        const error = yield* failure(Stream.runDrain(decompressBody(endless, undefined, 10 * 1024, onError)))
        assert.deepStrictEqual(error, new Failed("too-large", 10 * 1024))
        assert.isBelow(yield* Ref.get(pulled), 20)
      }))

    // A 10 MiB gzip body of zeros that inflates to 10 GiB: 640 gzip members of 16 MiB each.
    const zeros = Buffer.alloc(16 * 1024 * 1024)
    const member = gzipSync(zeros)
    const bomb = Buffer.concat(Array.from({ length: 640 }, () => member))

    for (const [name, size] of [["64 KiB chunks", 64 * 1024], ["one 10 MiB chunk", bomb.length]] as const) {
      it.effect(`fails a gzip bomb in ${name} quickly and in bounded memory`, () =>
        Effect.gen(function*() {
          assert.isAbove(bomb.length, 10 * 1000 * 1000)
          const maxBytes = 32 * 1024 * 1024
          let pulled = 0
          let peakRss = 0
          const rssBefore = process.memoryUsage.rss()
          const body = chunks(bomb, size).pipe(Stream.tap((bytes) => Effect.sync(() => pulled += bytes.length)))
          const error = yield* failure(Stream.runForEach(
            decompressBody(body, "gzip", maxBytes, onError),
            () => Effect.sync(() => peakRss = Math.max(peakRss, process.memoryUsage.rss()))
          ))
          assert.deepStrictEqual(error, new Failed("too-large", maxBytes))
          assert.isBelow(peakRss - rssBefore, 200 * 1024 * 1024)
          if (size < bomb.length) assert.isBelow(pulled, 1024 * 1024, "inflation is pulled, not run ahead")
        }))
    }

    // Deno's `Duplex.toWeb` enqueued zlib's late output into the cancelled readable: an uncaught
    // error that ended the process (which vitest reports as an unhandled error) after the refusal.
    it.effect("a refused bomb leaves nothing running that fails later", () =>
      Effect.gen(function*() {
        const ones = gzipSync(Buffer.alloc(1024 * 1024, 0x30), { level: 9 })
        const body = Stream.fromIterable(Array.from({ length: 200 }, () => ones))
        assert.deepStrictEqual(yield* failure(decode(body, "gzip", 1024 * 1024)), new Failed("too-large", 1024 * 1024))
        for (let turn = 0; turn < 20; turn++) yield* promiseCallbacks
      }))
  })

  describe("failures", () => {
    it.effect("refuses unsupported encodings without reading the body", () =>
      Effect.gen(function*() {
        for (const encoding of ["br", "compress", "zstd", "gzip, gzip", "deflate, gzip", "gzip;q=1"]) {
          const pulled = yield* Ref.make(false)
          const body = Stream.make(plain).pipe(Stream.tap(() => Ref.set(pulled, true)))
          const error = yield* failure(decode(body, encoding))
          assert.deepStrictEqual(error, new Failed("unsupported-encoding", 16 * 1024 * 1024), encoding)
          assert.isFalse(yield* Ref.get(pulled))
        }
      }))

    it.effect("fails corrupt data with a typed error, not a defect", () =>
      Effect.gen(function*() {
        const gzipped = gzipSync(plain)
        const garbage = new TextEncoder().encode("this is not gzip at all")
        const cases: Array<readonly [string, string, Uint8Array]> = [
          ["garbage", "gzip", garbage],
          ["garbage deflate", "deflate", garbage],
          ["gzip labelled deflate", "deflate", gzipped],
          ["truncated", "gzip", gzipped.subarray(0, gzipped.length - 10)],
          ["trailing garbage", "gzip", Buffer.concat([gzipped, garbage])],
          ["flipped byte", "gzip", Buffer.from(gzipped).fill(0xff, 100, 110)]
        ]
        for (const [name, encoding, body] of cases) {
          const error = yield* failure(decode(chunks(body, 256), encoding))
          assert.deepStrictEqual(error, new Failed("corrupt", 16 * 1024 * 1024), name)
        }
      }))

    it.effect("passes a failure of the body through", () =>
      Effect.gen(function*() {
        const gzipped = gzipSync(plain)
        for (const encoding of ["gzip", undefined]) {
          const body = Stream.concat(chunks(gzipped.subarray(0, 1000), 100), Stream.fail(new BodyError()))
          const error = yield* failure(decode(body, encoding))
          assert.deepStrictEqual(error, new BodyError())
        }
      }))
  })

  describe("cleanup", () => {
    it.scoped("leaves nothing to cancel after a clean end", () =>
      Effect.gen(function*() {
        const spy = yield* spyInflaters
        assert.deepStrictEqual(yield* decode(chunks(gzipSync(plain), 1024), "gzip", undefined, spy.inflater), plain)
        assert.deepStrictEqual(spy.created, [{ cancelled: false, released: false }])
      }))

    it.scoped("cancels the decompressor and interrupts the body when the consumer stops early", () =>
      Effect.gen(function*() {
        const spy = yield* spyInflaters
        const bodyClosed = yield* Deferred.make<void>()
        const gzipped = gzipSync(plain)
        // The first half of a body whose end never comes.
        const body = Stream.concat(chunks(gzipped.subarray(0, gzipped.length >> 1), 512), Stream.never).pipe(
          Stream.ensuring(Deferred.succeed(bodyClosed, undefined))
        )
        const first = yield* Stream.runCollect(
          Stream.take(decompressBody(body, "gzip", 1 << 24, onError, spy.inflater), 1)
        )
        assert.strictEqual(Chunk.size(first), 1)
        assert.isTrue(yield* Deferred.isDone(bodyClosed))
        yield* promiseCallbacks
        assert.deepStrictEqual(spy.created, [{ cancelled: true, released: true }])
      }))

    it.scoped("cancels the decompressor and interrupts the body when the fiber is interrupted", () =>
      Effect.gen(function*() {
        const spy = yield* spyInflaters
        const bodyClosed = yield* Deferred.make<void>()
        const firstOutput = yield* Deferred.make<void>()
        const gzipped = gzipSync(plain)
        const body = Stream.concat(chunks(gzipped.subarray(0, gzipped.length >> 1), 512), Stream.never).pipe(
          Stream.ensuring(Deferred.succeed(bodyClosed, undefined))
        )
        const fiber = yield* Effect.fork(
          Stream.runForEach(
            decompressBody(body, "gzip", 1 << 24, onError, spy.inflater),
            () => Deferred.succeed(firstOutput, undefined)
          )
        )
        yield* Deferred.await(firstOutput)
        yield* Fiber.interrupt(fiber)
        assert.isTrue(yield* Deferred.isDone(bodyClosed))
        yield* promiseCallbacks
        assert.deepStrictEqual(spy.created, [{ cancelled: true, released: true }])
      }))

    it.scoped("cancels the decompressor when the cap is exceeded", () =>
      Effect.gen(function*() {
        const spy = yield* spyInflaters
        // A body that never ends, so the writable is still open when the cap trips.
        const body = Stream.concat(chunks(gzipSync(plain), 512), Stream.never)
        const error = yield* failure(decode(body, "gzip", 1000, spy.inflater))
        assert.deepStrictEqual(error, new Failed("too-large", 1000))
        yield* promiseCallbacks
        assert.deepStrictEqual(spy.created, [{ cancelled: true, released: true }])
      }))
  })
})
