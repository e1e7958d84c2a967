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
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import { escapeControl } from "./internal/connection/logMessage.js"
import * as Tracing from "./internal/connection/tracing.js"
import * as Http from "./internal/http/http.js"
import * as Reply from "./internal/http/postReply.js"
import type { Id, Json } from "./internal/http/postReply.js"
import * as SseBody from "./internal/http/sseBody.js"
import * as Limits from "./internal/limits.js"
import type { AuthFailure } from "./McpAuth.js"
import {
  ConnectionError,
  InvalidResponseError,
  MissingResponseError,
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
  /** Overrides the client's `protocol` for this server (`auto`, `modern`, `legacy`). */
  readonly protocol?: ServerConfig<HttpClient.HttpClient>["protocol"]
  /** Overrides the client's bound on the `server/discover` probe for this server. */
  readonly discoverTimeout?: Duration.DurationInput | undefined
}

// 400 too: servers without a GET stream answer it so (mcp-lite), and a retry never helps.
const NO_STREAM = new Set([400, 404, 405, 406])

/**
 * What the sessions of one connection remember about a server that answers a lost session
 * with 400: whether it was told about, and whether the session opened after such a 400 has
 * yet to answer a request (until then another such 400 is the server's real answer).
 */
interface LostSessions {
  warned: boolean
  unproven: boolean
}

/** @internal */
export const defaultName = (url: string): string => {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

const open = (
  options: Options,
  mode: "streamable" | "plain",
  lost: LostSessions
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
    // The requests of `readers` sent as 2026-07-28 requests (see `send` on cancellation).
    const modernReaders = new Set<Id>()
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
        initializeId !== undefined && Reply.isObject(message) && message.id === initializeId &&
        Reply.isObject(message.result) &&
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
        // Logged by the stream's reader, once, with a count when the stream ends.
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
          Effect.either(SseBody.readSse(s, r, {
            onEvent: (event) => {
              if (event.data.length === 0) return
              const message = parseEvent(event.data)
              if (message === undefined) return false
              if (Reply.answers(message, id)) answered = true
              deliver(message)
            },
            onRetry: (millis) => (retryMillis = serverRetry = millis),
            lastEventId: (eventId) => (lastEventId = eventId),
            // An oversized response fails its request at once; the stream's other events still count.
            // A listen stream carries notifications until it ends: what it loses must stay re-openable.
            responseId: method === "subscriptions/listen" ? undefined : id,
            onResponseTooLarge: (error) => {
              if (answered || id === undefined) return
              answered = true
              sink.onRequestFailed(id, error)
            }
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
            yield* SseBody.readSse(s, opened.right, {
              onEvent: (event) => {
                if (event.data.length === 0) return
                const message = parseEvent(event.data)
                if (message === undefined) return false
                deliver(message)
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

    // The JSON-RPC error of a refusal's body (bounded), if it holds one.
    const errorSettings = { ...s, maxBodyBytes: Limits.MAX_ERROR_BODY_BYTES }
    const errorBody = (response: HttpClientResponse.HttpClientResponse) =>
      Effect.map(Effect.either(Http.readText(errorSettings, response)), Reply.errorBody)

    const refusal = (
      status: number,
      id: Id | undefined,
      method: string,
      { error, hasId }: Reply.ErrorBody
    ): Effect.Effect<void, SendError> => {
      if (error !== undefined && id !== undefined && hasId) {
        // A JSON-RPC error for our request: the peer turns it into its typed error.
        deliver({ jsonrpc: "2.0", id, error })
        return Effect.void
      }
      return Effect.fail(
        new ServerError({
          server,
          method,
          code: typeof error?.code === "number" ? error.code : -32600,
          message: typeof error?.message === "string" ? error.message.slice(0, 500) : `HTTP ${status}`,
          data: error !== undefined ? error.data : { status }
        })
      )
    }

    const refused = (response: HttpClientResponse.HttpClientResponse, id: Id | undefined, method: string) =>
      Effect.flatMap(errorBody(response), (body) => refusal(response.status, id, method, body))

    // The one "session lost" path, for a request that carried the session: a 404, as the spec
    // requires, or a 400 naming the session, taken once for that 404: the session opened after
    // it must answer a request before another counts.
    const lostSession = (
      response: HttpClientResponse.HttpClientResponse,
      id: Id | undefined,
      method: string
    ): Effect.Effect<void, SendError> => {
      if (response.status === 404) return Effect.zipRight(discard(response), Effect.fail(expired(method, id)))
      return Effect.flatMap(errorBody(response), (body): Effect.Effect<void, SendError> => {
        if (!Reply.mentionsSession(body.error) || lost.unproven) return refusal(400, id, method, body)
        lost.unproven = true
        const warn = lost.warned ? Effect.void : Effect.logWarning(
          `${server}: answered HTTP 400 ${
            escapeControl(JSON.stringify(String(body.error!.message)), 200)
          } for its session id; the spec requires 404 for a session it no longer knows, so this is taken for an expired session`
        )
        lost.warned = true
        return Effect.zipRight(warn, Effect.fail(expired(method, id)))
      })
    }

    const missing = (method: string, message: string) => new MissingResponseError({ server, method, message })

    // The body of a `200 application/json` reply; a request it does not answer fails at once.
    const readJson = (response: HttpClientResponse.HttpClientResponse, id: Id | undefined, method: string) =>
      Effect.flatMap(Http.readText(s, response), (text): Effect.Effect<void, SendError | InvalidResponseError> => {
        const messages = Reply.jsonMessages(text)
        if (messages === undefined) {
          return Effect.fail(new InvalidResponseError({ server, method, message: "the response body is not JSON" }))
        }
        let answered = false
        for (const message of messages) {
          if (Reply.answers(message, id)) answered = true
          deliver(message)
        }
        if (id === undefined || answered) return Effect.void
        return Effect.fail(missing(
          method,
          Reply.isBlank(text)
            ? `the reply to request ${JSON.stringify(id)} is an empty application/json body`
            : Reply.describeUnanswered(id, messages)
        ))
      })

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
      const carriedSession = sessionId !== undefined && method !== "initialize"
      if (carriedSession && (status === 404 || (status === 400 && resumable))) return lostSession(response, id, method)
      if (status >= 400) return refused(response, id, method)
      if (carriedSession && id !== undefined) lost.unproven = false
      const type = (response.headers["content-type"] ?? "").toLowerCase()
      // Read in the exchange's own fiber (see `send`).
      if (id !== undefined && type.startsWith("text/event-stream")) return readExchange(response, id, method, resumable)
      if (type.startsWith("application/json")) return readJson(response, id, method)
      // A 2026-07-28 response arrives on its POST or not at all.
      if (id !== undefined && !resumable) {
        return Effect.zipRight(
          discard(response),
          Effect.fail(missing(
            method,
            `the reply to request ${JSON.stringify(id)} is HTTP ${status} with Content-Type ${
              escapeControl(JSON.stringify(type.slice(0, 64)), 100)
            }, neither JSON nor an event stream`
          ))
        )
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
        const id = typeof m.method === "string" && Reply.isId(m.id) ? m.id : undefined
        if (method === "initialize") initializeId = id
        if (method === "notifications/cancelled" && Reply.isObject(m.params) && Reply.isId(m.params.requestId)) {
          const reader = readers.get(m.params.requestId)
          if (reader !== undefined) FiberSet.unsafeAdd(fibers, Effect.runFork(Fiber.interrupt(reader)))
          // On 2026-07-28 closing the response stream (aborting the POST) is the cancellation:
          // nothing is posted. (Its exchange, while it runs, is the only way the response could come.)
          if (modernReaders.has(m.params.requestId)) return Effect.void
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
        // A defect (our bug) fails the request at once too, logged, rather than leaving it to
        // its timeout.
        const fiber = fork(Effect.catchAllCause(exchange, (cause) => {
          const failure = Cause.failureOption(cause)
          if (failure._tag === "Some") {
            const error = failure.value
            return Effect.sync(() =>
              sink.onRequestFailed(
                id,
                error._tag === "InvalidResponseError" ? new ConnectionError({ server, message: error.message }) : error
              )
            )
          }
          if (Cause.isInterruptedOnly(cause)) return Effect.void
          return Effect.zipRight(
            Effect.logError(`${server}: internal error in the HTTP exchange of ${method}`, cause),
            Effect.sync(() =>
              sink.onRequestFailed(
                id,
                new ConnectionError({ server, message: `internal error in the HTTP exchange: ${Cause.squash(cause)}` })
              )
            )
          )
        }))
        readers.set(id, fiber)
        if (hints?.modern === true) modernReaders.add(id)
        fiber.addObserver(() => {
          if (readers.get(id) !== fiber) return
          readers.delete(id)
          modernReaders.delete(id)
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
      reusableCache: !s.customised,
      sessionId: () => sessionId,
      address: Tracing.addressOf(options.url)
    }
  })

/**
 * Opens the transport. `mode: "plain"` accepts only JSON answers and opens no GET stream.
 *
 * @since 0.1.0
 * @category constructors
 */
export const transport = (
  options: Options,
  mode: "streamable" | "plain" = "streamable"
): TransportFactory<HttpClient.HttpClient> => open(options, mode, { warned: false, unproven: false })

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
  readTimeout: options.readTimeout,
  protocol: options.protocol,
  discoverTimeout: options.discoverTimeout
})
