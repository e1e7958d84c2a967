/**
 * Plain HTTP: request/response JSON-RPC over POST (`baseUrl` + `endpoint`), with session header
 * handling and no server-initiated messages.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Duration from "effect/Duration"
import * as EraCache from "./EraCache.js"
import * as internal from "./internal/http/bodyReader.js"
import type * as Http from "./internal/http/http.js"
import * as Masked from "./internal/masked.js"
import { httpUrlError } from "./internal/url.js"
import type { ServerConfig } from "./ServerConfig.js"
import * as StreamableHttp from "./StreamableHttp.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options extends Http.HttpOptions {
  readonly name?: string | undefined
  /** The server's base URL, e.g. `https://api.example.com`. */
  readonly baseUrl: string
  /** Path of the JSON-RPC endpoint under `baseUrl` (default: the base URL itself). */
  readonly endpoint?: string | undefined
  readonly readTimeout?: Duration.DurationInput | undefined
}

/**
 * The endpoint URL of a plain HTTP server.
 *
 * @since 0.1.0
 * @category constructors
 */
export const endpointUrl = (options: Pick<Options, "baseUrl" | "endpoint">): string =>
  options.endpoint === undefined ? options.baseUrl : new URL(options.endpoint, options.baseUrl).toString()

/**
 * A server configuration for a plain HTTP server. A `baseUrl` (or an `endpoint` under it) that
 * is not http(s) or is malformed sets `configError`: connecting fails with it, nothing is sent.
 *
 * @since 0.1.0
 * @category constructors
 */
export const config = (options: Options): ServerConfig<HttpClient.HttpClient> => {
  // The endpoint is resolved only when it can be (`endpointUrl` throws otherwise).
  const baseError = httpUrlError(options.baseUrl)
  const resolvable = baseError === undefined &&
    (options.endpoint === undefined || URL.canParse(options.endpoint, options.baseUrl))
  const url = resolvable ? endpointUrl(options) : options.endpoint ?? options.baseUrl
  return {
    name: options.name ?? StreamableHttp.defaultName(url),
    kind: "http",
    transport: StreamableHttp.transport({ ...options, url, getStream: false }, "plain"),
    readTimeout: options.readTimeout,
    configError: baseError ?? httpUrlError(url),
    eraCacheKey: EraCache.urlKey(url),
    describe: () => Masked.describe(options)
  }
}

/**
 * The optional capability of an `HttpClientResponse` to hand its body to a callback, chunk by
 * chunk as it arrives, which costs far less per response than a `Stream`. The HTTP transports
 * use it when a response has it (`@mcp-effect/node`'s `UndiciHttpClient` does) and read
 * `response.stream` otherwise. `onChunk` runs synchronously and returns `false` to stop reading
 * (the rest of the exchange is abandoned), or a {@link BodyReaderPause} to stop the socket until
 * the receiver says to go on; the effect completes at the body's end, and interrupting it
 * abandons the exchange.
 *
 * @since 0.1.0
 * @category body reading
 */
export const BodyReaderTypeId: typeof internal.BodyReaderTypeId = internal.BodyReaderTypeId

/**
 * @since 0.1.0
 * @category body reading
 */
export type BodyReaderTypeId = typeof BodyReaderTypeId

/**
 * @since 0.1.0
 * @category body reading
 */
export type BodyReader = internal.BodyReader

/**
 * What `onChunk` returns to pause a body: called once with `resume`, which the receiver calls
 * with `true` to read on or `false` to stop. A reader that cannot pause reads on.
 *
 * @since 0.2.0
 * @category body reading
 */
export type BodyReaderPause = internal.BodyReaderPause

/**
 * Marks an `HttpClient` (or one of its responses) whose bodies arrive as the server sent them,
 * content codings still on: `@mcp-effect/node`'s `UndiciHttpClient` carries it. With such a
 * client the HTTP transports send `Accept-Encoding: gzip, deflate` and inflate `gzip` and
 * `deflate` bodies themselves. Any other client is taken to decode bodies as `fetch` does: no
 * `Accept-Encoding` is added (the client sends its own) and `Content-Encoding` is left alone.
 * Either way `maxDecompressedBodyBytes` counts the decoded bytes. A client of your own on a
 * dispatcher that does not decode sets it to `true`:
 * `Object.assign(client, { [Http.RawBodiesTypeId]: true })`.
 *
 * @since 0.2.0
 * @category body reading
 */
export const RawBodiesTypeId: typeof internal.RawBodiesTypeId = internal.RawBodiesTypeId

/**
 * @since 0.2.0
 * @category body reading
 */
export type RawBodiesTypeId = typeof RawBodiesTypeId
