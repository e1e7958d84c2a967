/**
 * The Streamable HTTP transport (2025-03-26 and later), and its request/response-only sibling
 * used for plain HTTP servers.
 *
 * Every message is a POST; a request is answered with JSON or with an SSE stream that is read
 * incrementally, so progress and server-initiated requests on it are handled while the request
 * is open. A stream that breaks before its response is resumed with `GET` + `Last-Event-ID`.
 * The session id of `initialize` is sent afterwards and the session is ended with `DELETE`; a
 * 404 for it (or, once, a 400 whose error names the session, as SDK 1.x servers answer) closes
 * this connection (the next request opens a new session). After initialization the optional
 * GET stream carries unsolicited server messages. A reply that does not hold its request's
 * response fails that request at once; a 2026-07-28 request is cancelled by aborting its POST.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as EraCache from "./EraCache.js"
import type * as Http from "./internal/http/http.js"
import type * as StreamableConnection from "./internal/http/streamable.js"
import * as Masked from "./internal/masked.js"
import { httpUrlError } from "./internal/url.js"
import type { ServerConfig } from "./ServerConfig.js"
import type { TransportFactory } from "./Transport.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options extends Http.HttpOptions {
  /** Server name; defaults to the URL's host. */
  readonly name?: string | undefined
  /** The MCP endpoint, e.g. `https://example.com/mcp`. */
  readonly url: string
  readonly readTimeout?: Duration.DurationInput | undefined
  /** Open the optional GET stream after initialization (default true). */
  readonly getStream?: boolean | undefined
  /**
   * The most long-lived streams (GET and listen streams; a connection holds one at most) the
   * connections of this page or process may hold to the server's origin at once: 4 by default in
   * browsers, so that 2 of HTTP/1.1's 6 connections per origin stay for calls; no limit
   * elsewhere or with `false` (an HTTP/2 server). Beyond it a listen fails with
   * `ConnectionError` (`reason: "stream-limit"`) and a GET stream is not opened. Added in 0.2.0.
   */
  readonly maxStreamsPerOrigin?: number | false | undefined
  /** Overrides the client's `protocol` for this server (`auto`, `modern`, `legacy`). */
  readonly protocol?: ServerConfig<HttpClient.HttpClient>["protocol"]
  /** Overrides the client's bound on the `server/discover` probe for this server. */
  readonly discoverTimeout?: Duration.DurationInput | undefined
}

/** @internal */
export const defaultName = (url: string): string => {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

/**
 * Opens the transport. `mode: "plain"` accepts only JSON answers and opens no GET stream.
 *
 * @since 0.1.0
 * @category constructors
 */
export const transport = (
  options: Options,
  mode: "streamable" | "plain" = "streamable"
): TransportFactory<HttpClient.HttpClient> => {
  // What this server's connections remember of its lost-session 400s (State.LostSessions).
  const lost = { warned: false, unproven: false }
  return (sink, server) => {
    const open = (connection: typeof StreamableConnection) => connection.transportOf(options, mode, lost)(sink, server)
    return connectionCode !== undefined ? open(connectionCode) : Effect.flatMap(Effect.promise(loadConnection), open)
  }
}

/**
 * The connection's code, loaded with the first Streamable HTTP or plain HTTP connection; once
 * loaded, later connections take it as it is (an `import()` per connect is a module-map look-up
 * and a turn of the event loop).
 */
let connectionCode: typeof StreamableConnection | undefined
const loadConnection = () => import("./internal/http/streamable.js").then((connection) => connectionCode = connection)

/**
 * A server configuration for a Streamable HTTP server. A `url` that is not http(s) (`ftp://…`,
 * `htps://…`) or is malformed sets `configError`: connecting fails with it, nothing is sent.
 *
 * @since 0.1.0
 * @category constructors
 */
export const config = (options: Options): ServerConfig<HttpClient.HttpClient> => ({
  name: options.name ?? defaultName(options.url),
  kind: "streamable_http",
  transport: transport(options),
  readTimeout: options.readTimeout,
  protocol: options.protocol,
  discoverTimeout: options.discoverTimeout,
  configError: httpUrlError(options.url),
  eraCacheKey: EraCache.urlKey(options.url),
  describe: () => Masked.describe(options)
})
