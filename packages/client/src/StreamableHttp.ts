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
import * as Cause from "effect/Cause"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Runtime from "effect/Runtime"
import * as Tracing from "./internal/connection/tracing.js"
import * as Http from "./internal/http/http.js"
import * as Reply from "./internal/http/postReply.js"
import type { Id, Json } from "./internal/http/postReply.js"
import * as Get from "./internal/http/streamableGet.js"
import * as Post from "./internal/http/streamablePost.js"
import * as State from "./internal/http/streamableState.js"
import type { InvalidResponseError } from "./McpError.js"
import { ConnectionError } from "./McpError.js"
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
  lost: State.LostSessions
): TransportFactory<HttpClient.HttpClient> =>
(sink, server) =>
  Effect.gen(function*() {
    const c = State.make(yield* Http.settings(server, options, sink), options.url, sink, lost)
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
    let listening = false
    const accept = mode === "plain" ? "application/json" : "application/json, text/event-stream"

    // The GET stream is opened before `notifications/initialized` goes out, so what a server
    // sends the moment it is initialized (a list_changed, say) has a stream to arrive on.
    const openListen = Effect.suspend(() => {
      listening = true
      // The first GET keeps running if it is slow: listen takes its answer rather than
      // opening a second stream (which would pick up messages meant for a resumption).
      return Effect.flatMap(FiberSet.run(fibers, Effect.either(State.get(c, undefined))), (first) =>
        Effect.zipRight(
          FiberSet.run(fibers, Get.listen(c, Fiber.join(first))),
          Effect.ignore(Effect.timeout(Fiber.await(first), "2 seconds"))
        ))
    })

    // A request's exchange runs in a fiber of its own, its failure reported for its id: the
    // caller waits for the response alone, so the request's deadline covers a POST the server
    // never answers, cancellation interrupts the exchange, and closing the transport interrupts
    // whatever is still in flight. A defect (our bug) fails the request at once too, logged,
    // rather than leaving it to its timeout.
    const forkExchange = (exchange: Effect.Effect<void, SendError | InvalidResponseError>, id: Id, method: string) =>
      fork(Effect.catchAllCause(exchange, (cause) => {
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

    const send = (message: object, hints?: SendHints): Effect.Effect<void, SendError> =>
      Effect.suspend(() => {
        if (c.closed) return Effect.fail(new ConnectionError({ server, message: "the HTTP session is closed" }))
        const m = message as Json
        const method = typeof m.method === "string" ? m.method : "response"
        const id = typeof m.method === "string" && Reply.isId(m.id) ? m.id : undefined
        if (method === "initialize") c.initializeId = id
        if (method === "notifications/cancelled" && Reply.isObject(m.params) && Reply.isId(m.params.requestId)) {
          const reader = readers.get(m.params.requestId)
          if (reader !== undefined) FiberSet.unsafeAdd(fibers, Effect.runFork(Fiber.interrupt(reader)))
          // On 2026-07-28 closing the response stream (aborting the POST) is the cancellation:
          // nothing is posted. (Its exchange, while it runs, is the only way the response could come.)
          if (modernReaders.has(m.params.requestId)) return Effect.void
        }
        const before = method === "notifications/initialized" && mode === "streamable" &&
            options.getStream !== false && !listening
          ? openListen
          : undefined
        const posted = Effect.flatMap(
          Post.post(c, accept, m, method, hints),
          (response) => Post.handle(c, response, id, method, hints?.modern !== true)
        )
        const exchange = before === undefined ? posted : Effect.zipRight(before, posted)
        if (id === undefined) {
          return Effect.catchTag(
            exchange,
            "InvalidResponseError",
            (e) => Effect.fail(new ConnectionError({ server, message: e.message }))
          )
        }
        const fiber = forkExchange(exchange, id, method)
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
        c.closed = true
        if (c.sessionId === undefined) {
          return Effect.void
        }
        const request = HttpClientRequest.del(options.url).pipe(HttpClientRequest.setHeaders(State.headers(c)))
        return Http.executeAuthorized(c.s, request).pipe(
          Effect.flatMap(State.discard),
          Effect.interruptible,
          Effect.timeout("2 seconds"),
          Effect.ignore
        )
      })
    )

    return {
      send,
      description: `${mode === "plain" ? "http" : "streamable-http"}:${Http.originOf(options.url)}`,
      authorization: Effect.suspend(() => Http.authorizationKey(c.s.headers())),
      reusableCache: !c.s.customised,
      sessionId: () => c.sessionId,
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
