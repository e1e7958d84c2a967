/**
 * The Streamable HTTP transport (2025-03-26 and later), and its request/response-only sibling
 * used for plain HTTP servers.
 *
 * Every message is a POST; a request is answered with JSON or with an SSE stream that is read
 * incrementally, so progress and server-initiated requests on it are handled while the request
 * is open. A stream that breaks before its response is resumed with `GET` + `Last-Event-ID`.
 * The session id of `initialize` is sent afterwards and the session is ended with `DELETE`; a
 * 404 for it closes this connection (the next request opens a new session). After
 * initialization the optional GET stream carries unsolicited server messages.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import * as Http from "./internal/http/http.js"
import * as Limits from "./internal/limits.js"
import { summarize } from "./internal/wire/ndjson.js"
import type { AuthFailure } from "./McpAuth.js"
import {
  ConnectionError,
  InvalidResponseError,
  ResponseStreamClosedError,
  ServerError,
  SessionExpiredError
} from "./McpError.js"
import type { ServerConfig } from "./ServerConfig.js"
import type { SendError, SendHints, TransportFactory } from "./Transport.js"

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
}

type Json = Record<string, unknown>
type Id = string | number

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)
const isId = (u: unknown): u is Id => typeof u === "string" || typeof u === "number"
// Whether a body is only whitespace (as `trim` would find, without copying it).
const isBlank = (text: string): boolean => !/\S/.test(text)
const NO_STREAM = new Set([404, 405, 406])

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
): TransportFactory<HttpClient.HttpClient> =>
(sink, server) =>
  Effect.gen(function*() {
    const s = yield* Http.settings(server, options, sink)
    const fibers = yield* FiberSet.make<unknown, never>()
    // Forks a request's exchange into `fibers` at once (no effect around the fork), in a fiber
    // whose refs already turn the HttpClient's spans off (no `Effect.locally` per request).
    const runFork = Runtime.runFork(Http.quietRuntime(yield* Effect.runtime<never>()))
    const fork = <A>(exchange: Effect.Effect<A>) => {
      const fiber = runFork(exchange)
      FiberSet.unsafeAdd(fibers, fiber)
      return fiber
    }
    const readers = new Map<Id, Fiber.RuntimeFiber<unknown, never>>()
    let sessionId: string | undefined
    let protocolVersion: string | undefined
    let initializeId: Id | undefined
    let closed = false
    let listening = false
    // The reconnection time is the last `retry:` the server sent on any stream, as an
    // EventSource keeps one for its whole connection.
    let serverRetry: number | undefined

    const accept = mode === "plain" ? "application/json" : "application/json, text/event-stream"
    // Configured headers in the Mcp-Param-* namespace would impersonate tool arguments on a
    // 2026-07-28 request, where the client owns that namespace: they go to legacy requests only.
    const withoutParams = (configured: Record<string, string>) =>
      Object.fromEntries(Object.entries(configured).filter(([name]) => !/^mcp-param-/i.test(name)))
    // What every request starts from, derived again only when the configured headers change (a
    // function may hand out new ones per request).
    let configured: Record<string, string> | undefined
    let legacyBase: Record<string, string> = {}
    let modernBase: Record<string, string> = {}
    const headers = (extra?: Record<string, string>, hints?: SendHints) => {
      const current = s.headers()
      if (current !== configured) {
        configured = current
        legacyBase = { ...current, "accept-encoding": "gzip, deflate" }
        modernBase = { ...withoutParams(current), "accept-encoding": "gzip, deflate" }
      }
      if (hints?.modern === true) return { ...modernBase, ...extra, ...hints.headers }
      const all: Record<string, string> = { ...legacyBase, ...extra }
      if (sessionId !== undefined) all["mcp-session-id"] = sessionId
      if (protocolVersion !== undefined) all["mcp-protocol-version"] = protocolVersion
      return hints?.headers === undefined ? all : { ...all, ...hints.headers }
    }

    const deliver = (message: unknown) => {
      if (
        initializeId !== undefined && isObject(message) && message.id === initializeId && isObject(message.result) &&
        typeof message.result.protocolVersion === "string" && Http.isSafeHeaderValue(message.result.protocolVersion, 64)
      ) {
        protocolVersion = message.result.protocolVersion
        initializeId = undefined
      }
      sink.onMessage(message)
    }

    const parseEvent = (data: string): unknown => {
      try {
        return JSON.parse(data)
      } catch {
        Effect.runFork(
          Effect.logWarning(`${server}: skipped a malformed SSE message ${summarize(data.slice(0, 4096))}`)
        )
        return undefined
      }
    }

    const discard = (response: HttpClientResponse.HttpClientResponse) =>
      Effect.ignore(Stream.runDrain(Stream.take(response.stream, 4)))

    const get = (lastEventId: string | undefined) =>
      Http.executeAuthorized(
        s,
        HttpClientRequest.get(options.url).pipe(
          HttpClientRequest.setHeaders(
            headers(
              lastEventId === undefined ? { accept: "text/event-stream" } : {
                accept: "text/event-stream",
                "last-event-id": lastEventId
              }
            )
          )
        )
      )

    // Reads one request's SSE answer; resumes it with GET + Last-Event-ID if it breaks before
    // the response arrived. A response that did arrive stands, whatever the socket does next.
    const readExchange = (
      response: HttpClientResponse.HttpClientResponse,
      id: Id | undefined,
      method: string,
      resumable: boolean
    ) =>
      Effect.gen(function*() {
        let answered = false
        let lastEventId: string | undefined
        let retryMillis: number | undefined
        const read = (r: HttpClientResponse.HttpClientResponse) =>
          Effect.either(Http.readSse(s, r, {
            onEvent: (event) => {
              if (event.data.length === 0) return
              const message = parseEvent(event.data)
              if (message === undefined) return
              if (isObject(message) && message.id === id && ("result" in message || "error" in message)) answered = true
              deliver(message)
            },
            onRetry: (millis) => (retryMillis = serverRetry = millis),
            lastEventId: (eventId) => (lastEventId = eventId)
          }))
        const first = yield* read(response)
        if (first._tag === "Left" && first.left._tag === "ResponseTooLargeError" && id !== undefined && !answered) {
          return sink.onRequestFailed(id, first.left)
        }
        let attempts = 0
        while (!answered && !closed && id !== undefined) {
          // 2026-07-28 has no resumption: the broken stream is reported and the caller re-issues.
          if (!resumable || lastEventId === undefined || attempts > Math.max(3, s.retries)) {
            return sink.onRequestFailed(
              id,
              new ResponseStreamClosedError({
                server,
                method,
                message: lastEventId === undefined
                  ? "the response stream ended before the response and cannot be resumed"
                  : "the response stream could not be resumed"
              })
            )
          }
          attempts++
          yield* Effect.sleep(Http.retryDelay(s, retryMillis ?? serverRetry, Duration.seconds(1)))
          const resumed = yield* Effect.either(get(lastEventId))
          if (resumed._tag === "Right" && resumed.right.status === 200) yield* read(resumed.right)
          else if (resumed._tag === "Right") yield* discard(resumed.right)
        }
      })

    // The optional server → client stream, reconnected on a Schedule-like backoff that honours
    // the server's retry: (floored) and gives up after consecutive failures.
    const listen = (
      first: Effect.Effect<Either.Either<HttpClientResponse.HttpClientResponse, ConnectionError | AuthFailure>>
    ) =>
      Effect.gen(function*() {
        let lastEventId: string | undefined
        let retryMillis: number | undefined
        let failures = 0
        let pending: typeof first | undefined = first
        while (!closed) {
          const opened = yield* (pending ?? Effect.either(get(lastEventId)))
          pending = undefined
          if (opened._tag === "Right" && NO_STREAM.has(opened.right.status)) {
            yield* discard(opened.right)
            return yield* Effect.logDebug(`${server}: no GET stream (HTTP ${opened.right.status})`)
          }
          if (opened._tag === "Right" && opened.right.status >= 200 && opened.right.status < 300) {
            failures = 0
            yield* Http.readSse(s, opened.right, {
              onEvent: (event) => {
                if (event.data.length === 0) return
                const message = parseEvent(event.data)
                if (message !== undefined) deliver(message)
              },
              onRetry: (millis) => (retryMillis = serverRetry = millis),
              lastEventId: (eventId) => (lastEventId = eventId)
            }).pipe(Effect.ignore)
          } else {
            if (opened._tag === "Right") yield* discard(opened.right)
            failures++
            if (failures >= Limits.MAX_GET_FAILURES) {
              return yield* Effect.logWarning(`${server}: GET stream failed ${failures} times in a row; giving up`)
            }
          }
          const delay = failures === 0
            ? Http.retryDelay(s, retryMillis, Duration.seconds(1))
            : Duration.min(Duration.times(s.retryBase, 2 ** (failures - 1)), Duration.seconds(30))
          yield* Effect.sleep(delay)
        }
      })

    // The request that met the expiry fails with SessionExpiredError (its caller may re-send it
    // on a new session); everything else in flight fails with the connection.
    const expired = (method: string, id: Id | undefined) => {
      sessionId = undefined
      closed = true
      const error = new SessionExpiredError({ server, method })
      if (id !== undefined) sink.onRequestFailed(id, error)
      sink.onClose(new ConnectionError({ server, message: "the server expired the session" }))
      return error
    }

    const refused = (
      response: HttpClientResponse.HttpClientResponse,
      id: Id | undefined,
      method: string
    ): Effect.Effect<void, SendError | InvalidResponseError> =>
      Effect.flatMap(
        Effect.either(Http.readText({ ...s, maxBodyBytes: Limits.MAX_ERROR_BODY_BYTES }, response)),
        (text) => {
          let body: unknown
          try {
            body = text._tag === "Right" ? JSON.parse(text.right) : undefined
          } catch {
            body = undefined
          }
          const error = isObject(body) && isObject(body.error) ? body.error : undefined
          if (error !== undefined && id !== undefined && (body as Json).id !== undefined) {
            // A JSON-RPC error for our request: the peer turns it into its typed error.
            deliver({ jsonrpc: "2.0", id, error })
            return Effect.void
          }
          return Effect.fail(
            new ServerError({
              server,
              method,
              code: typeof error?.code === "number" ? error.code : -32600,
              message: typeof error?.message === "string" ? error.message.slice(0, 500) : `HTTP ${response.status}`,
              data: error !== undefined ? error.data : { status: response.status }
            })
          )
        }
      )

    const handle = (
      response: HttpClientResponse.HttpClientResponse,
      id: Id | undefined,
      method: string,
      resumable: boolean
    ): Effect.Effect<void, SendError | InvalidResponseError> => {
      if (method === "initialize" && sessionId === undefined) {
        const issued = response.headers["mcp-session-id"]
        if (issued !== undefined && Http.isSafeHeaderValue(issued)) sessionId = issued
      }
      const status = response.status
      if (status === 404 && sessionId !== undefined && method !== "initialize") {
        return Effect.zipRight(discard(response), Effect.fail(expired(method, id)))
      }
      if (status >= 400) return refused(response, id, method)
      const type = (response.headers["content-type"] ?? "").toLowerCase()
      // Read in the exchange's own fiber (see `send`).
      if (id !== undefined && type.startsWith("text/event-stream")) return readExchange(response, id, method, resumable)
      if (type.startsWith("application/json")) {
        return Effect.flatMap(Http.readText(s, response), (text) => {
          if (isBlank(text)) return Effect.void
          try {
            const body: unknown = JSON.parse(text)
            if (Array.isArray(body)) body.forEach(deliver)
            else deliver(body)
            return Effect.void
          } catch {
            return Effect.fail(new InvalidResponseError({ server, method, message: "the response body is not JSON" }))
          }
        })
      }
      return discard(response)
    }

    const post = (message: Json, method: string, hints: SendHints | undefined) =>
      Http.withRetries(
        s,
        method,
        Effect.flatMap(
          Effect.suspend(() => {
            const sent = headers({ accept }, hints)
            const request = Http.executeAuthorized(
              s,
              HttpClientRequest.post(options.url).pipe(
                HttpClientRequest.setHeaders(sent),
                HttpClientRequest.bodyText(JSON.stringify(message), "application/json")
              )
            )
            const onAuthorization = hints?.onAuthorization
            return onAuthorization === undefined ? request : Effect.zipRight(
              Effect.map(Http.authorizationKey(sent), onAuthorization),
              request
            )
          }),
          (response) =>
            response.status >= 500
              ? Effect.zipRight(discard(response), Effect.fail(Http.transient(s, method, response.status)))
              : Effect.succeed(response)
        )
      )

    const send = (message: object, hints?: SendHints): Effect.Effect<void, SendError> =>
      Effect.suspend(() => {
        if (closed) return Effect.fail(new ConnectionError({ server, message: "the HTTP session is closed" }))
        const m = message as Json
        const method = typeof m.method === "string" ? m.method : "response"
        const id = typeof m.method === "string" && isId(m.id) ? m.id : undefined
        if (method === "initialize") initializeId = id
        if (method === "notifications/cancelled" && isObject(m.params) && isId(m.params.requestId)) {
          const reader = readers.get(m.params.requestId)
          if (reader !== undefined) FiberSet.unsafeAdd(fibers, Effect.runFork(Fiber.interrupt(reader)))
        }
        // The GET stream is opened before `notifications/initialized` goes out, so what a server
        // sends the moment it is initialized (a list_changed, say) has a stream to arrive on.
        const before = method === "notifications/initialized" && mode === "streamable" &&
            options.getStream !== false && !listening
          ? Effect.suspend(() => {
            listening = true
            // The first GET keeps running if it is slow: listen takes its answer rather than
            // opening a second stream (which would pick up messages meant for a resumption).
            return Effect.flatMap(FiberSet.run(fibers, Effect.either(get(undefined))), (first) =>
              Effect.zipRight(
                FiberSet.run(fibers, listen(Fiber.join(first))),
                Effect.ignore(Effect.timeout(Fiber.await(first), "2 seconds"))
              ))
          })
          : undefined
        const posted = Effect.flatMap(
          post(m, method, hints),
          (response) => handle(response, id, method, hints?.modern !== true)
        )
        const exchange = before === undefined ? posted : Effect.zipRight(before, posted)
        if (id === undefined) {
          return Effect.catchTag(
            exchange,
            "InvalidResponseError",
            (e) => Effect.fail(new ConnectionError({ server, message: e.message }))
          )
        }
        // A request's exchange runs in a fiber of its own, its failure reported for its id: the
        // caller waits for the response alone, so the request's deadline covers a POST the
        // server never answers, cancellation interrupts the exchange, and closing the
        // transport interrupts whatever is still in flight.
        const fiber = fork(Effect.catchAll(exchange, (error) =>
          Effect.sync(() =>
            sink.onRequestFailed(
              id,
              error._tag === "InvalidResponseError" ? new ConnectionError({ server, message: error.message }) : error
            )
          )))
        readers.set(id, fiber)
        fiber.addObserver(() => {
          if (readers.get(id) === fiber) readers.delete(id)
        })
        return Effect.void
      })

    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closed = true
        if (sessionId === undefined) {
          return Effect.void
        }
        const request = HttpClientRequest.del(options.url).pipe(HttpClientRequest.setHeaders(headers()))
        return Http.executeAuthorized(s, request).pipe(
          Effect.flatMap(discard),
          Effect.interruptible,
          Effect.timeout("2 seconds"),
          Effect.ignore
        )
      })
    )

    return {
      send,
      description: `${mode === "plain" ? "http" : "streamable-http"}:${Http.originOf(options.url)}`,
      authorization: Effect.suspend(() => Http.authorizationKey(s.headers())),
      reusableCache: !s.customised
    }
  })

/**
 * A server configuration for a Streamable HTTP server.
 *
 * @since 0.1.0
 * @category constructors
 */
export const config = (options: Options): ServerConfig<HttpClient.HttpClient> => ({
  name: options.name ?? defaultName(options.url),
  kind: "streamable_http",
  transport: transport(options),
  readTimeout: options.readTimeout
})
