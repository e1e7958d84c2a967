/**
 * Response bodies decoded by `Content-Encoding` under a byte cap. Inflation is incremental and
 * paced by the consumer, and decoded bytes are counted as they come out, so a gzip bomb fails just
 * past `maxBytes`, holding no more than what the consumer keeps plus one write's worth of output.
 *
 * Inflates with Node's zlib where the runtime has it (Node, Deno, Bun), reached through
 * `process.getBuiltinModule` so the client package stays free of `node:` imports, and with the
 * web-standard `DecompressionStream` elsewhere (see `inflaterStreams` for why not always the latter).
 * The zlib stream gets web streams of our own rather than `Duplex.toWeb`'s: Deno's enqueues output
 * into a stream already cancelled and crashes the process with an uncaught error, which is what a
 * refused bomb does.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Host from "../host.js"

/**
 * Why a body could not be delivered:
 * - `"too-large"`: more than `maxBytes` bytes after decoding (or as sent, for identity);
 * - `"unsupported-encoding"`: a coding other than gzip, x-gzip, deflate and identity, more than
 *   one coding, or a runtime with neither `node:zlib` nor `DecompressionStream`;
 * - `"corrupt"`: the compressed bytes are malformed or truncated.
 *
 * @internal
 */
export type DecompressFailure = "too-large" | "unsupported-encoding" | "corrupt"

/** @internal */
export type Format = "gzip" | "deflate"

// Bounds what one write can make the inflater produce before the reader's backpressure applies
// (deflate expands at most ~1032:1; Node pauses mid-chunk anyway, other runtimes may not).
const MAX_WRITE_BYTES = 16 * 1024

/**
 * The coding of a `Content-Encoding` value: `"identity"` when absent or only identity, `undefined`
 * when unsupported. Stacked codings are rare enough that we refuse them rather than chain inflaters.
 */
const formatOf = (contentEncoding: string | undefined): Format | "identity" | undefined => {
  if (contentEncoding === undefined) return "identity"
  let format: Format | "identity" = "identity"
  for (const token of contentEncoding.split(",")) {
    const coding = token.trim().toLowerCase()
    if (coding === "" || coding === "identity") continue
    if (format !== "identity") return undefined
    if (coding === "gzip" || coding === "x-gzip") format = "gzip"
    else if (coding === "deflate") format = "deflate"
    else return undefined
  }
  return format
}

/**
 * Decodes `body` according to `contentEncoding` ("gzip", "x-gzip", "deflate" — the zlib format of
 * RFC 9110 — or absent/"identity") and fails with `onError("too-large", maxBytes)` as soon as more
 * than `maxBytes` decoded bytes have been produced; an identity body is counted the same way.
 * Other failures are `onError("unsupported-encoding" | "corrupt", maxBytes)`; failures of `body`
 * pass through. Interruption or failure cancels the decompressor and interrupts `body`.
 * `maxBytes` may be `Infinity`: an SSE stream is bounded per event by its parser, never as a
 * whole, and its inflation is still paced by its consumer. `makeInflater` is for tests, which
 * watch the inflaters made.
 *
 * @internal
 */
export const decompressBody = <E, E2, R>(
  body: Stream.Stream<Uint8Array, E, R>,
  contentEncoding: string | undefined,
  maxBytes: number,
  onError: (reason: DecompressFailure, limit: number) => E2,
  makeInflater: (format: Format) => InflaterStreams = inflaterStreams
): Stream.Stream<Uint8Array, E | E2, R> => {
  const format = formatOf(contentEncoding)
  if (format === undefined) return Stream.fail(onError("unsupported-encoding", maxBytes))
  if (format === "identity") return maxBytes === Infinity ? body : capped(body, maxBytes, onError)
  return inflate(body, format, maxBytes, onError, makeInflater)
}

const capped = <E, E2, R>(
  body: Stream.Stream<Uint8Array, E, R>,
  maxBytes: number,
  onError: (reason: DecompressFailure, limit: number) => E2
): Stream.Stream<Uint8Array, E | E2, R> =>
  Stream.suspend(() => {
    let total = 0
    return Stream.mapChunksEffect(body, (chunk) => {
      for (const bytes of chunk) total += bytes.length
      return total > maxBytes ? Effect.fail(onError("too-large", maxBytes)) : Effect.succeed(chunk)
    })
  })

interface Inflater {
  readonly reader: ReadableStreamDefaultReader<Uint8Array>
  readonly writer: WritableStreamDefaultWriter<Uint8Array>
}

/**
 * The inflater's two ends. A gzip body may be several members in a row (RFC 1952), and bombs
 * usually are, but `DecompressionStream` decodes only the first and fails on what follows, as the
 * Compression Standard says (Node enforces it since 24). Node's gunzip decodes every member, so it
 * is preferred where the runtime has it; elsewhere a multi-member body fails as corrupt.
 */
export const inflaterStreams = (format: Format): InflaterStreams => {
  const zlib = Host.builtinModule<Zlib>("node:zlib")
  if (zlib === undefined) return new DecompressionStream(format) as InflaterStreams
  return webStreams(format === "gzip" ? zlib.createGunzip() : zlib.createInflate())
}

/** @internal */
export interface InflaterStreams {
  readonly readable: ReadableStream<Uint8Array>
  readonly writable: WritableStream<Uint8Array>
}

/** The part of `node:zlib` used here. */
interface Zlib {
  readonly createGunzip: () => NodeInflater
  readonly createInflate: () => NodeInflater
}

/** The part of a zlib `Transform` used here. */
interface NodeInflater {
  readonly write: (chunk: Uint8Array, callback: (error?: Error | null) => void) => boolean
  readonly end: (callback: (error?: Error | null) => void) => void
  readonly on: (event: "data" | "end" | "error", listener: (value?: unknown) => void) => void
  readonly pause: () => void
  readonly resume: () => void
  readonly destroy: () => void
}

/**
 * A zlib stream as a writable and a readable web stream. Its output is paused while the readable
 * holds a chunk nobody took, and nothing is enqueued once the readable ended, failed or was
 * cancelled (output zlib still flushes then is dropped). Cancelling or aborting destroys the zlib
 * stream, which settles a write it was still working on (zlib never calls that write back).
 */
const webStreams = (inflater: NodeInflater): InflaterStreams => {
  let settled = false
  const pending = new Set<(error?: Error | null) => void>()
  const close = () => {
    settled = true
    inflater.destroy()
    for (const callback of pending) callback(new Error("the inflater was closed"))
  }
  const readable = new ReadableStream<Uint8Array>({
    start: (controller) => {
      inflater.on("data", (chunk) => {
        if (settled) return
        const bytes = chunk as Uint8Array
        controller.enqueue(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength))
        if ((controller.desiredSize ?? 0) <= 0) inflater.pause()
      })
      inflater.on("end", () => {
        if (settled) return
        settled = true
        controller.close()
      })
      inflater.on("error", (error) => {
        if (settled) return
        settled = true
        controller.error(error)
      })
    },
    pull: () => inflater.resume(),
    cancel: close
  })
  const callback = (resolve: () => void, reject: (error: unknown) => void) => {
    const settle = (error?: Error | null) => {
      if (!pending.delete(settle)) return
      if (error === undefined || error === null) resolve()
      else reject(error)
    }
    pending.add(settle)
    return settle
  }
  const writable = new WritableStream<Uint8Array>({
    write: (chunk) => new Promise((resolve, reject) => void inflater.write(chunk, callback(resolve, reject))),
    close: () => new Promise((resolve, reject) => inflater.end(callback(resolve, reject))),
    abort: close
  })
  return { readable, writable }
}

const ignore = () => {}

const inflate = <E, E2, R>(
  body: Stream.Stream<Uint8Array, E, R>,
  format: Format,
  maxBytes: number,
  onError: (reason: DecompressFailure, limit: number) => E2,
  makeInflater: (format: Format) => InflaterStreams
): Stream.Stream<Uint8Array, E | E2, R> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const { reader, writer } = yield* Effect.acquireRelease(
      Effect.try({
        try: (): Inflater => {
          const { readable, writable } = makeInflater(format)
          return { reader: readable.getReader(), writer: writable.getWriter() }
        },
        catch: () => onError("unsupported-encoding", maxBytes)
      }),
      // Errors here only repeat what the stream already reported (or nothing, after a clean end).
      ({ reader, writer }) =>
        Effect.sync(() => {
          reader.cancel().catch(ignore)
          writer.abort().catch(ignore)
        })
    )

    const corrupt = () => onError("corrupt", maxBytes)

    // A write resolves once the inflater accepts more input, which waits for the reader to drain
    // its output: the pace is set by whoever consumes the result.
    const writeSlice = (bytes: Uint8Array) => Effect.tryPromise({ try: () => writer.write(bytes), catch: corrupt })
    const write = (bytes: Uint8Array): Effect.Effect<void, E2> => {
      if (bytes.length <= MAX_WRITE_BYTES) return bytes.length === 0 ? Effect.void : writeSlice(bytes)
      return Effect.suspend(() => {
        let offset = 0
        return Effect.whileLoop({
          while: () => offset < bytes.length,
          body: () => writeSlice(bytes.subarray(offset, offset + MAX_WRITE_BYTES)),
          step: () => {
            offset += MAX_WRITE_BYTES
          }
        })
      })
    }

    const feeder: Stream.Stream<never, E | E2, R> = Stream.drain(Stream.fromEffect(
      Effect.zipRight(
        Stream.runForEach(body, write),
        Effect.tryPromise({ try: () => writer.close(), catch: corrupt })
      )
    ))

    let total = 0
    const output: Stream.Stream<Uint8Array, E2> = Stream.repeatEffectOption(
      Effect.flatMap(
        Effect.tryPromise({ try: () => reader.read(), catch: () => Option.some(corrupt()) }),
        (result): Effect.Effect<Uint8Array, Option.Option<E2>> => {
          if (result.done) return Effect.fail(Option.none())
          total += result.value.length
          return total > maxBytes
            ? Effect.fail(Option.some(onError("too-large", maxBytes)))
            : Effect.succeed(result.value)
        }
      )
    )

    // Ends when the inflater's output ends (after the feeder closed it); fails with whichever side
    // fails first, interrupting the other.
    return Stream.merge(output, feeder, { haltStrategy: "left" })
  }))
