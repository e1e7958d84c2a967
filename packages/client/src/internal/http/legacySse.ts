/**
 * The legacy HTTP+SSE connection: the event stream, its `endpoint`, and the POSTs. Loaded with
 * an HTTP+SSE server's first connection.
 *
 * @internal
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Deprecations from "../../Deprecations.js"
import { ConnectionError, ServerError } from "../../McpError.js"
import type { Options } from "../../Sse.js"
import type { SendError, Transport, TransportFactory } from "../../Transport.js"
import * as Address from "../address.js"
import * as Defaults from "../defaults.js"
import * as Http from "./http.js"
import * as SseBody from "./sseBody.js"
import * as StreamSlots from "./streamSlots.js"

/** @internal */
export const transportOf = (options: Options): TransportFactory<HttpClient.HttpClient> => (sink, server) =>
  Effect.gen(function*() {
    const s = yield* Http.settings(server, options, sink)
    const origin = Http.originOf(options.url)
    const endpoint = yield* Deferred.make<string, ConnectionError>()
    let closed = false
    // The event stream is long-lived for the whole connection: it takes a slot of the origin's.
    const slot = StreamSlots.holder(server, origin, StreamSlots.limitOf(options.maxStreamsPerOrigin))
    const refused = slot.open()
    if (refused !== undefined) return yield* refused
    yield* Effect.addFinalizer(() => Effect.sync(slot.close))

    const opened = yield* Http.executeAuthorized(
      s,
      HttpClientRequest.get(options.url).pipe(
        HttpClientRequest.setHeaders(Http.withAcceptEncoding(s, { ...s.headers(), accept: "text/event-stream" }))
      )
    )
    if (opened.status !== 200 || !(opened.headers["content-type"] ?? "").startsWith("text/event-stream")) {
      yield* Effect.ignore(Stream.runDrain(Stream.take(opened.stream, 4)))
      return yield* new ConnectionError({
        server,
        message: `GET ${origin} did not open an SSE stream (HTTP ${opened.status})`,
        reason: "protocol"
      })
    }

    const onEndpoint = (data: string) => {
      let url: URL
      try {
        url = new URL(data.trim(), options.url)
      } catch {
        return Deferred.unsafeDone(
          endpoint,
          Effect.fail(new ConnectionError({ server, message: "invalid endpoint event", reason: "protocol" }))
        )
      }
      if (url.origin !== origin) {
        return Deferred.unsafeDone(
          endpoint,
          Effect.fail(
            new ConnectionError({
              server,
              message: `refused an endpoint on another origin (${url.origin})`,
              reason: "protocol"
            })
          )
        )
      }
      Deferred.unsafeDone(endpoint, Effect.succeed(url.toString()))
    }

    yield* SseBody.readSse(s, opened, {
      onEvent: (event) => {
        if (event.event === "endpoint") return onEndpoint(event.data)
        if (event.data.length === 0) return
        let message: unknown
        try {
          message = JSON.parse(event.data)
        } catch {
          // Logged by the stream's reader, once, with a count when the stream ends.
          return false
        }
        sink.onMessage(message)
      },
      onRetry: () => {},
      lastEventId: () => {},
      backpressure: sink.backpressure
    }).pipe(
      Effect.onExit((exit) =>
        Effect.sync(() => {
          // A stream stopped for too long (its answers not draining) says so; any other end is one.
          const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
          const ended = Option.isSome(failure) && failure.value._tag === "ConnectionError" &&
              failure.value.reason === "timeout"
            ? failure.value
            : new ConnectionError({ server, message: "the SSE stream ended", reason: "closed" })
          Deferred.unsafeDone(endpoint, Effect.fail(ended))
          if (!closed) sink.onClose(ended)
        })
      ),
      Effect.ignore,
      Effect.forkScoped
    )
    yield* Effect.addFinalizer(() => Effect.sync(() => (closed = true)))

    const postUrl = yield* Deferred.await(endpoint).pipe(
      Effect.timeoutFail({
        duration: options.readTimeout ?? Defaults.LEGACY_ENDPOINT_TIMEOUT,
        onTimeout: () => new ConnectionError({ server, message: "no endpoint event arrived", reason: "protocol" })
      })
    )
    yield* Deprecations.warnOnce("http+sse")

    const send = (message: object): Effect.Effect<void, SendError> => {
      const method = typeof (message as { method?: unknown }).method === "string"
        ? (message as { method: string }).method
        : "response"
      return Http.withRetries(
        s,
        method,
        Effect.flatMap(
          Http.executeAuthorized(
            s,
            HttpClientRequest.post(postUrl).pipe(
              HttpClientRequest.setHeaders(s.headers()),
              HttpClientRequest.bodyText(JSON.stringify(message), "application/json")
            )
          ),
          (response): Effect.Effect<void, SendError> => {
            const drained = Effect.ignore(Stream.runDrain(Stream.take(response.stream, 4)))
            if (response.status >= 500) {
              return Effect.zipRight(drained, Effect.fail(Http.transient(s, method, response.status)))
            }
            if (response.status >= 400) {
              return Effect.zipRight(
                drained,
                Effect.fail(
                  new ServerError({
                    server,
                    method,
                    code: -32600,
                    message: `HTTP ${response.status}`,
                    data: { status: response.status }
                  })
                )
              )
            }
            return drained
          }
        )
      )
    }
    return { send, description: `sse:${origin}`, address: Address.addressOf(options.url) } satisfies Transport
  })
