/**
 * What an `HttpClient` and its responses may say about bodies. The body reader: the optional
 * capability of an `HttpClientResponse` to hand its body to a callback, chunk by chunk as it
 * arrives, far cheaper per response than a `Stream`. `onChunk` runs synchronously and returns
 * `false` to stop reading (the rest of the exchange is then abandoned), or a pause: the socket
 * stops until the receiver calls `resume` (`true` to go on, `false` to stop), the flow control
 * of a receiver whose queue is full. A reader that cannot pause reads on. The effect completes
 * at the body's end, and interrupting it abandons the exchange. Raw bodies: whether bodies arrive
 * with their content coding still on. Its own module: `Http` exports both without loading the
 * transports' HTTP code.
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
    onChunk: (chunk: Uint8Array) => boolean | BodyReaderPause
  ) => Effect.Effect<void, HttpClientError.ResponseError>
}

/**
 * @internal
 * @inline
 */
export type BodyReaderPause = (resume: (goOn: boolean) => void) => void

/**
 * Says, on an `HttpClient` or on a response, that bodies arrive as the server sent them (content
 * codings not undone, as undici's dispatcher API and `node:http` deliver them). Without it a
 * client is taken to decode bodies itself, as `fetch` does.
 *
 * @internal
 */
export const RawBodiesTypeId: unique symbol = Symbol.for("@mcp-effect/client/Http/RawBodies")

/** Whether `value` (a client or a response) says its bodies arrive undecoded. @internal */
export const hasRawBodies = (value: object): boolean =>
  (value as { readonly [RawBodiesTypeId]?: unknown })[RawBodiesTypeId] === true
