/**
 * The optional capability of an `HttpClientResponse` to hand its body to a callback, chunk by
 * chunk as it arrives: far cheaper per response than a `Stream`. `onChunk` runs synchronously
 * and returns `false` to stop reading (the rest of the exchange is then abandoned); the effect
 * completes at the body's end, and interrupting it abandons the exchange. Its own module: `Http`
 * exports it without loading the transports' HTTP code.
 *
 * @internal
 */
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as Effect from "effect/Effect"

/** @internal */
export const BodyReaderTypeId: unique symbol = Symbol.for("@mcp-effect/client/Http/BodyReader")

/**
 * @internal
 * @inline
 */
export interface BodyReader {
  readonly [BodyReaderTypeId]: (
    onChunk: (chunk: Uint8Array) => boolean
  ) => Effect.Effect<void, HttpClientError.ResponseError>
}
