/**
 * The legacy HTTP+SSE transport of protocol 2024-11-05 (deprecated: prefer Streamable HTTP).
 * `GET` opens the event stream, whose first `endpoint` event names where to POST messages;
 * every server message arrives on the stream. An `endpoint` on another origin is refused, so
 * configured credentials never reach another host.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Http from "./internal/http/http.js"
import * as Masked from "./internal/masked.js"
import { httpUrlError } from "./internal/url.js"
import type { ServerConfig } from "./ServerConfig.js"
import { defaultName } from "./StreamableHttp.js"
import type { TransportFactory } from "./Transport.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options extends Http.HttpOptions {
  readonly name?: string | undefined
  /** The SSE endpoint, e.g. `http://localhost:8000/sse`. */
  readonly url: string
  /** Default timeout of every request, and the wait for the server's `endpoint` event (default 30 seconds). */
  readonly readTimeout?: Duration.DurationInput | undefined
  /** Sends `ping` at this interval to keep the stream alive. */
  readonly ping?: Duration.DurationInput | undefined
  /**
   * The most long-lived streams the connections of this page or process may hold to the
   * server's origin (4 by default in browsers, none elsewhere; `false`: none). The event stream
   * is one: past the limit connecting fails with `ConnectionError` (`reason: "stream-limit"`).
   * Added in 0.2.0.
   */
  readonly maxStreamsPerOrigin?: number | false | undefined
}

/**
 * Opens the event stream and waits for its `endpoint`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const transport = (options: Options): TransportFactory<HttpClient.HttpClient> => (sink, server) =>
  Effect.flatMap(Effect.promise(loadConnection), (connection) => connection.transportOf(options)(sink, server))

/** The connection's code, loaded with the first HTTP+SSE connection. */
const loadConnection = () => import("./internal/http/legacySse.js")

/**
 * A server configuration for a legacy HTTP+SSE server. A `url` that is not http(s) or is
 * malformed sets `configError`: connecting fails with it, nothing is sent.
 *
 * @since 0.1.0
 * @category constructors
 */
export const config = (options: Options): ServerConfig<HttpClient.HttpClient> => ({
  name: options.name ?? defaultName(options.url),
  kind: "sse",
  transport: transport(options),
  readTimeout: options.readTimeout,
  keepAlive: options.ping,
  configError: httpUrlError(options.url),
  describe: () => Masked.describe(options)
})
