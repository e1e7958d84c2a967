/**
 * Serves a {@link FakeServer.Definition} over real loopback HTTP (`127.0.0.1`, a free port) for
 * testing the HTTP transports: Streamable HTTP (2025-11-25) on `/mcp`, the legacy HTTP+SSE
 * transport (2024-11-05) on `/sse` + `/message`, and plain JSON-RPC over HTTP on `/rpc`. Hostile
 * behaviours (5xx, 4xx with a JSON-RPC body, cut streams, dead sockets, gzip bombs, unterminated
 * events, `retry: 0`, hostile event ids, an off-origin legacy endpoint, cross-origin redirects,
 * stalled POSTs) are small options, open POST streams can be cut, and every HTTP request is recorded.
 *
 * @example
 * ```ts
 * import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
 * import * as Scenarios from "@mcp-effect/testing/Scenarios"
 * import * as Effect from "effect/Effect"
 *
 * const test = Effect.gen(function*() {
 *   const server = yield* FakeHttpServer.make({ definition: Scenarios.demo, responseMode: "json" })
 *   const response = yield* Effect.promise(() =>
 *     fetch(server.mcpUrl, {
 *       method: "POST",
 *       headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
 *       body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })
 *     })
 *   )
 *   const recorded = yield* server.requests
 *   return { status: response.status, recorded }
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as FakeServer from "./FakeServer.js"
import * as internal from "./internal/fakeHttpServer.js"

/**
 * Which messages a fault applies to: messages whose JSON-RPC `method` is `method` (default
 * `"tools/call"`; `"*"` for every message, responses included), at most `times` times (default:
 * always).
 *
 * @since 0.1.0
 * @category models
 */
export interface FaultScope {
  readonly method?: string | undefined
  readonly times?: number | undefined
}

/**
 * Scripted hostile behaviours. Every field is off when absent. Faults that take a
 * {@link FaultScope} (or `true` for the defaults) apply only on the main origin, to POST `/mcp`
 * and, where it makes sense, POST `/rpc`.
 *
 * The short-circuiting faults (`status5xxTimes`, `status4xx`, `redirect`, `gzipBomb`,
 * `unterminatedEvent`) answer without handing the message to the fake server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Faults {
  /** Answers the next `n` POSTs (any path, any message) with `503` and a text body. */
  readonly status5xxTimes?: number | undefined
  /**
   * Answers matching POSTs with `status` (default 400), `Content-Type: application/json` and
   * `{"jsonrpc":"2.0","id":<the request's id>,"error":{"code":…,"message":…,"data":…}}` (`code`
   * default -32600; no `id` for a notification or response).
   */
  readonly status4xx?:
    | boolean
    | FaultScope & {
      readonly status?: number | undefined
      readonly code?: number | undefined
      readonly message?: string | undefined
      readonly data?: unknown
    }
    | undefined
  /**
   * On a matching request answered with an SSE stream (`/mcp`, `responseMode: "sse"`): the
   * notifications for the request (its progress) go out as events with ids, then, when the
   * result is ready, the socket is destroyed instead of sending it. The result stays in the
   * stream's history: a GET `/mcp` with `Last-Event-ID` of the last event received replays it
   * and ends.
   */
  readonly cutAfterNotifications?: boolean | FaultScope | undefined
  /**
   * Sends the result of a matching request (the SSE event, or the JSON body written chunked),
   * waits until it is flushed, then destroys the socket without ending the response.
   */
  readonly deadSocketAfterResult?: boolean | FaultScope | undefined
  /**
   * Answers a matching request with `Content-Encoding: gzip` (whatever the request's
   * `Accept-Encoding`) and a body that inflates to a JSON-RPC response prefix followed by
   * `bytes` (default 1 GiB) of ASCII `0` inside an unterminated string (as an SSE `data:` line
   * in SSE mode). About 1 KiB on the wire per inflated MiB; streamed with backpressure, it stops
   * when the client disconnects.
   */
  readonly gzipBomb?: boolean | FaultScope & { readonly bytes?: number | undefined } | undefined
  /**
   * Answers a matching request on `/mcp` with `200 text/event-stream` and `data: ` followed by
   * `bytes` (default 100 MiB) of `x` and no newline, in 64 KiB chunks with backpressure, until
   * the client disconnects (or all is sent: then the response ends).
   */
  readonly unterminatedEvent?: boolean | FaultScope & { readonly bytes?: number | undefined } | undefined
  /**
   * Every GET `/mcp` stream writes what it has pending, then `retry: 0` with the stream's last
   * event id and an empty `data:`, then ends the response.
   */
  readonly retryZero?: boolean | undefined
  /**
   * Every SSE event on `/mcp` streams carries this id instead of the real one: `true` for 10 KiB
   * of `e`, or `{ id }` for anything else, e.g. control characters
   * (`"a\u0000b\u001b[31m"`). A `\r` or `\n` in it splits the line, as on any wire.
   */
  readonly longEventId?: boolean | { readonly id: string } | undefined
  /**
   * The legacy `endpoint` event points elsewhere: `true` for
   * `http://evil.example/message?sessionId=<id>`, or this exact string.
   */
  readonly offOriginEndpoint?: boolean | string | undefined
  /**
   * Answers matching POSTs with `status` (default 307) and `Location: to` (default: the same
   * path on {@link FakeHttpServer.foreignUrl}, another origin that serves the same server
   * without faults and whose requests are recorded with `origin: "foreign"`).
   */
  readonly redirect?:
    | boolean
    | FaultScope & { readonly to?: string | undefined; readonly status?: number | undefined }
    | undefined
  /**
   * Answers matching requests (POST `/mcp` or `/rpc`) with `200 application/json` that holds no
   * response to them: `"empty"` (default) an empty body, `"otherId"` a result for another id,
   * `{ id }` a result for that id, `"notifications"` a batch of two `notifications/message`. The
   * fake server is not told.
   */
  readonly unansweredJson?:
    | boolean
    | FaultScope & { readonly reply?: "empty" | "otherId" | "notifications" | { readonly id: unknown } | undefined }
    | undefined
  /**
   * Holds matching POSTs to `/mcp` without answering (not even a status line) until
   * {@link FakeHttpServer.releaseStalled}; then they are served as usual, unless their client
   * went away meanwhile (then the fake server never sees them). They are recorded on arrival.
   */
  readonly stall?: boolean | FaultScope | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options extends Faults {
  readonly definition: FakeServer.Definition
  /**
   * How POST `/mcp` answers requests: `"sse"` (default) opens a `text/event-stream` carrying the
   * request's notifications, then its response, then ends; `"json"` answers one
   * `application/json` response, and the request's notifications go to the GET stream.
   */
  readonly responseMode?: "sse" | "json" | undefined
  /**
   * Issue `Mcp-Session-Id` on the initialize response and require it afterwards (missing: 400,
   * unknown, expired or deleted: 404). Default `true`. Without sessions every client shares one
   * connection to the fake server, and DELETE answers 405.
   */
  readonly sessions?: boolean | undefined
  /** What GET `/mcp` does: open the server→client SSE stream (`"sse"`, default) or answer this status. */
  readonly getStream?: "sse" | 405 | 404 | 406 | 400 | undefined
  /**
   * What a request carrying an unknown, expired or deleted session id gets: `404` (default, as
   * the spec requires) or, as servers built from the SDK 1.x examples answer, `400` with
   * `-32000 "Bad Request: No valid session ID provided"`.
   */
  readonly unknownSessionStatus?: 404 | 400 | undefined
  /**
   * gzip response bodies (JSON bodies, and SSE streams flushed per event) when the request's
   * `Accept-Encoding` lists gzip. Default `false`.
   */
  readonly gzip?: boolean | undefined
  /**
   * Start every SSE response to a POST with an event carrying an id and an empty `data:`, as the
   * 2025-11-25 spec recommends, so a client can resume before the first message. Default `false`.
   */
  readonly primeEvents?: boolean | undefined
  /** Events kept per stream for `Last-Event-ID` replay (default 100). */
  readonly historySize?: number | undefined
  /**
   * Require `Accept` to list both `application/json` and `text/event-stream` on POST `/mcp`, and
   * `text/event-stream` on GET `/mcp` (406 otherwise). Default `true`.
   */
  readonly strictAccept?: boolean | undefined
}

/**
 * One HTTP request as the server received it.
 *
 * @since 0.1.0
 * @category models
 */
export interface RecordedRequest {
  /** Which listener received it: the main one, or the {@link FakeHttpServer.foreignUrl} one. */
  readonly origin: "main" | "foreign"
  readonly method: string
  /** Path and query, e.g. `/message?sessionId=…`. */
  readonly path: string
  /** Lower-cased names; repeated headers joined with `", "`. */
  readonly headers: Readonly<Record<string, string>>
  /** The body parsed as JSON; `undefined` when empty or not JSON. */
  readonly body: unknown
  /** The body as text (`""` when empty). */
  readonly text: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface FakeHttpServer {
  /** The base URL, `http://127.0.0.1:<port>`. */
  readonly url: string
  /** The Streamable HTTP endpoint, `${url}/mcp`. */
  readonly mcpUrl: string
  /** The legacy HTTP+SSE stream, `${url}/sse` (its `endpoint` event names `/message?sessionId=…`). */
  readonly sseUrl: string
  /** Plain JSON-RPC over HTTP, `${url}/rpc`: one JSON request, one JSON response; no streams. */
  readonly rpcUrl: string
  /** Another origin (another port) serving the same routes without faults; redirects point here. */
  readonly foreignUrl: string
  /** The fake server behind every route (`received`, `setTools`, `crash`, …). */
  readonly fake: FakeServer.FakeServer
  /** Every HTTP request on both origins, oldest first. */
  readonly requests: Effect.Effect<ReadonlyArray<RecordedRequest>>
  /**
   * Ends every session (Streamable and legacy): their open streams end, in-flight JSON requests
   * get 404, and later requests carrying their ids get 404. Without sessions, the next request
   * starts a fresh connection to the fake server.
   */
  readonly expireSessions: Effect.Effect<void>
  /**
   * Sends a notification on every connection: the GET stream of each Streamable session (kept
   * until a GET stream attaches when none is open) and each legacy SSE stream.
   */
  readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
  /**
   * Destroys the sockets of every open GET `/mcp` stream and legacy `/sse` stream. Streamable
   * streams keep their history, so a GET with `Last-Event-ID` resumes them; legacy sessions end.
   */
  readonly cutGetStreams: Effect.Effect<void>
  /** How many GET `/mcp` and `/sse` streams are open now. */
  readonly openGetStreams: Effect.Effect<number>
  /**
   * How many POST `/mcp` SSE streams of unanswered requests of `method` are open now (the
   * `subscriptions/listen` streams, say). Added in 0.2.0.
   */
  readonly openPostStreams: (method: string) => Effect.Effect<number>
  /**
   * Destroys the sockets of the open POST `/mcp` SSE streams of requests of `method` that have
   * not been answered (a dropped `subscriptions/listen` stream, say). The fake server is not
   * told: to it the request is still open.
   */
  readonly cutPostStreams: (method: string) => Effect.Effect<void>
  /** The requests whose client closed the connection before their answer was complete, oldest first. */
  readonly abandoned: Effect.Effect<ReadonlyArray<RecordedRequest>>
  /** Serves the POSTs held by the `stall` fault. */
  readonly releaseStalled: Effect.Effect<void>
  /** Replaces the faults named in `faults` (an `undefined` value turns one off) and resets their counters. */
  readonly setFaults: (faults: Faults) => Effect.Effect<void>
}

/**
 * Starts the server on `127.0.0.1` (and its foreign origin) on free ports; the scope closes
 * both, ending every connection.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options: Options) => Effect.Effect<FakeHttpServer, never, Scope.Scope> = internal.make
