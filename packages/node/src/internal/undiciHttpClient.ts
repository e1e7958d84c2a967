/**
 * An `HttpClient` on undici's dispatcher API: one handler object per exchange, no `AbortController`,
 * no Node `Readable` for the body, no `FinalizationRegistry` entry unless a body is left unread.
 *
 * @internal
 */
import type * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as Undici from "@effect/platform-node/Undici"
import * as Cookies from "@effect/platform/Cookies"
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as IncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as UrlParams from "@effect/platform/UrlParams"
import { BodyReaderTypeId, RawBodiesTypeId } from "@mcp-effect/client/Http"
import type { BodyReaderPause } from "@mcp-effect/client/Http"
import { concatBytes } from "@mcp-effect/client/internal/bytes"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { globalValue } from "effect/GlobalValue"
import * as Inspectable from "effect/Inspectable"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

/** What `HttpClient.makeWith` runs per request: the request in, the response out. @internal */
export type Postprocess = (
  request: Effect.Effect<HttpClientRequest.HttpClientRequest>
) => Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>

// A body nobody reads is buffered up to this many bytes, then the socket is paused.
const HIGH_WATER_MARK = 64 * 1024

interface PushSink {
  readonly chunk: (chunk: Uint8Array) => void
  readonly end: () => void
  readonly fail: (error: unknown) => void
}

type Pull = (result: Effect.Effect<Chunk.Chunk<Uint8Array>, Option.Option<unknown>>) => void

const responses = new FinalizationRegistry<Exchange>((exchange) => exchange.abort())

/**
 * One request/response, as undici's (legacy, every-version) dispatch handler. It buffers the
 * body until a reader attaches: a push reader gets every chunk synchronously as it arrives, a pull
 * reader (the `stream`) takes what is buffered, with the socket paused past the high-water mark.
 */
class Exchange implements Undici.Dispatcher.DispatchHandler {
  private abortSocket: ((error?: Error) => void) | undefined = undefined
  private abortRequested = false
  private onStart:
    | ((status: number, rawHeaders: ReadonlyArray<Buffer>) => void)
    | undefined
  private onStartError: ((error: unknown) => void) | undefined
  private chunks: Array<Uint8Array> = []
  private buffered = 0
  private resumeSocket: (() => void) | undefined = undefined
  private paused = false
  private sink: PushSink | undefined = undefined
  private sinkPaused = false
  private waiter: Pull | undefined = undefined
  private registered = false
  private attached = false
  done = false
  error: unknown = undefined

  constructor(
    onStart: (status: number, rawHeaders: ReadonlyArray<Buffer>) => void,
    onStartError: (error: unknown) => void
  ) {
    this.onStart = onStart
    this.onStartError = onStartError
  }

  abort(): void {
    if (this.done || this.error !== undefined) return
    this.abortRequested = true
    this.abortSocket?.()
  }

  onConnect(abort: (error?: Error) => void): void {
    if (this.abortRequested) abort()
    else this.abortSocket = abort
  }

  onHeaders(status: number, rawHeaders: Array<Buffer>, resume: () => void): boolean {
    if (status < 200) return true
    this.resumeSocket = resume
    const onStart = this.onStart
    this.onStart = this.onStartError = undefined
    onStart?.(status, rawHeaders)
    return true
  }

  onData(chunk: Buffer): boolean {
    if (this.sink !== undefined) {
      // A sink that paused gets what undici still delivers when it resumes, in order.
      if (this.sinkPaused) this.chunks.push(chunk)
      else this.sink.chunk(chunk)
      return !this.sinkPaused
    }
    const waiter = this.waiter
    if (waiter !== undefined) {
      this.waiter = undefined
      waiter(Effect.succeed(Chunk.of(chunk)))
      return true
    }
    this.chunks.push(chunk)
    this.buffered += chunk.length
    if (this.buffered >= HIGH_WATER_MARK) this.paused = true
    return !this.paused
  }

  onComplete(): void {
    this.done = true
    this.settled()
    // A paused sink gets the end after what it has not taken yet (`resumeSink`).
    if (this.sink !== undefined) return this.sinkPaused ? undefined : this.sink.end()
    const waiter = this.waiter
    if (waiter !== undefined) {
      this.waiter = undefined
      waiter(Effect.fail(Option.none()))
    }
  }

  onError(error: Error): void {
    if (this.done) return
    this.error = error
    this.settled()
    const onStartError = this.onStartError
    if (onStartError !== undefined) {
      this.onStart = this.onStartError = undefined
      return onStartError(error)
    }
    if (this.sink !== undefined) return this.sink.fail(error)
    const waiter = this.waiter
    if (waiter !== undefined) {
      this.waiter = undefined
      waiter(Effect.fail(Option.some(error)))
    }
  }

  /**
   * Aborts the exchange if `response` is collected while its body is still coming. Decided a
   * microtask after the headers: by then a small body has usually arrived with them.
   */
  watch(response: object): void {
    queueMicrotask(() => {
      if (this.done || this.error !== undefined || this.attached) return
      this.registered = true
      responses.register(response, this, this)
    })
  }

  private settled(): void {
    if (this.registered) {
      this.registered = false
      responses.unregister(this)
    }
  }

  private takeBuffered(): Array<Uint8Array> {
    const chunks = this.chunks
    this.chunks = []
    this.buffered = 0
    if (this.paused) {
      this.paused = false
      this.resumeSocket?.()
    }
    return chunks
  }

  /** Hands every chunk to `sink` from now on (buffered ones first, synchronously). */
  attach(sink: PushSink): void {
    this.attached = true
    this.settled()
    if (this.chunks.length > 0) {
      for (const chunk of this.takeBuffered()) sink.chunk(chunk)
    }
    if (this.done) return sink.end()
    if (this.error !== undefined) return sink.fail(this.error)
    this.sink = sink
  }

  /** Stops the socket for the sink until `resumeSink`. */
  pauseSink(): void {
    this.sinkPaused = true
  }

  /** Hands the sink what arrived while it was paused, then reads on unless it paused again. */
  resumeSink(): void {
    this.sinkPaused = false
    while (this.chunks.length > 0 && !this.sinkPaused && this.sink !== undefined) {
      this.sink.chunk(this.chunks.shift()!)
    }
    if (this.sinkPaused || this.sink === undefined) return
    if (this.done) return this.sink.end()
    this.resumeSocket?.()
  }

  /** Resumes `pull` with what is buffered, the end, the failure, or the next chunk when it comes. */
  pull(pull: Pull): void {
    this.attached = true
    this.settled()
    if (this.chunks.length > 0) return pull(Effect.succeed(Chunk.unsafeFromArray(this.takeBuffered())))
    if (this.done) return pull(Effect.fail(Option.none()))
    if (this.error !== undefined) return pull(Effect.fail(Option.some(this.error)))
    this.waiter = pull
  }

  stopPull(): void {
    this.waiter = undefined
  }
}

const decoder = new TextDecoder()

const headersProto: object = Object.getPrototypeOf(Headers.empty)

// Header names and values as undici's `util.headerNameToString` and `util.parseHeaders` read them,
// without loading the undici package (whose modules are most of a first connection's cost when
// the dispatcher is Node's own).
const headerName = (raw: Buffer): string => raw.toString("latin1").toLowerCase()

/**
 * The response headers as `Headers.fromInput(undici.util.parseHeaders(raw))` makes them (names
 * lower-cased, repeated ones joined with ", "), in one pass.
 */
const headersOf = (raw: ReadonlyArray<Buffer>): Headers.Headers => {
  const out = Object.create(headersProto) as Record<string, string>
  for (let i = 0; i < raw.length; i += 2) {
    const name = headerName(raw[i]!)
    const value = raw[i + 1]!.toString("latin1")
    const known = out[name]
    out[name] = known === undefined ? value : `${known}, ${value}`
  }
  return out as unknown as Headers.Headers
}

class UndiciResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [IncomingMessage.TypeId]: IncomingMessage.TypeId = IncomingMessage.TypeId
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  private cachedHeaders: Headers.Headers | undefined = undefined
  private cachedCookies: Cookies.Cookies | undefined = undefined
  private cachedBytes: Effect.Effect<Uint8Array, HttpClientError.ResponseError> | undefined = undefined

  constructor(
    readonly request: HttpClientRequest.HttpClientRequest,
    readonly status: number,
    private readonly rawHeaders: ReadonlyArray<Buffer>,
    private readonly exchange: Exchange
  ) {
    super()
  }

  get headers(): Headers.Headers {
    return this.cachedHeaders ??= headersOf(this.rawHeaders)
  }

  get cookies(): Cookies.Cookies {
    if (this.cachedCookies !== undefined) return this.cachedCookies
    const raw = this.rawHeaders
    const setCookie: Array<string> = []
    for (let i = 0; i < raw.length; i += 2) {
      if (headerName(raw[i]!) === "set-cookie") setCookie.push(raw[i + 1]!.toString("utf8"))
    }
    return this.cachedCookies = setCookie.length === 0 ? Cookies.empty : Cookies.fromSetCookie(setCookie)
  }

  /** Bodies come as sent: undici's dispatcher API leaves content codings on. */
  get [RawBodiesTypeId](): true {
    return true
  }

  get remoteAddress(): Option.Option<string> {
    return Option.none()
  }

  private decodeError(cause: unknown): HttpClientError.ResponseError {
    return new HttpClientError.ResponseError({ request: this.request, response: this, reason: "Decode", cause })
  }

  /**
   * Hands each body chunk to `onChunk` as it arrives (synchronously, in undici's callback);
   * `onChunk` returning `false` stops reading (the rest of the exchange is aborted). Completes
   * at the body's end; interrupting it aborts the exchange.
   */
  [BodyReaderTypeId](
    onChunk: (chunk: Uint8Array) => boolean | BodyReaderPause
  ): Effect.Effect<void, HttpClientError.ResponseError> {
    return Effect.async<void, HttpClientError.ResponseError>((resume) => {
      let active = true
      const exchange = this.exchange
      const stop = () => {
        active = false
        exchange.abort()
        resume(Effect.void)
      }
      exchange.attach({
        chunk: (chunk) => {
          if (!active) return
          let more: boolean | BodyReaderPause
          try {
            more = onChunk(chunk)
          } catch (defect) {
            active = false
            exchange.abort()
            return resume(Effect.die(defect))
          }
          if (more === true) return
          if (more === false) return stop()
          // A receiver that is full: the socket stops until it says to go on or to stop.
          exchange.pauseSink()
          more((goOn) => {
            if (!active) return
            if (goOn) exchange.resumeSink()
            else stop()
          })
        },
        end: () => {
          if (!active) return
          active = false
          resume(Effect.void)
        },
        fail: (error) => {
          if (!active) return
          active = false
          resume(Effect.fail(this.decodeError(error)))
        }
      })
      return active
        ? Effect.sync(() => {
          active = false
          exchange.abort()
        })
        : undefined
    })
  }

  private get bytes(): Effect.Effect<Uint8Array, HttpClientError.ResponseError> {
    return this.cachedBytes ??= Effect.runSync(Effect.cached(Effect.suspend(() => {
      const chunks: Array<Uint8Array> = []
      let total = 0
      return Effect.map(
        this[BodyReaderTypeId]((chunk) => {
          chunks.push(chunk)
          total += chunk.length
          return true
        }),
        () => concatBytes(chunks, total)
      )
    })))
  }

  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return Effect.map(this.bytes, (bytes) => decoder.decode(bytes))
  }

  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: () => text === "" ? null : JSON.parse(text) as unknown,
        catch: (cause) => this.decodeError(cause)
      }))
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return Effect.map(
      this.bytes,
      (bytes) =>
        bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer
          ? bytes.buffer
          : bytes.slice().buffer as ArrayBuffer
    )
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: () => UrlParams.fromInput(new URLSearchParams(text)),
        catch: (cause) => this.decodeError(cause)
      }))
  }

  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return Effect.flatMap(this.arrayBuffer, (body) =>
      Effect.tryPromise({
        try: () => new globalThis.Response(body, { headers: this.headers }).formData(),
        catch: (cause) => this.decodeError(cause)
      }))
  }

  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    const exchange = this.exchange
    return Stream.ensuring(
      Stream.repeatEffectChunkOption(
        Effect.async<Chunk.Chunk<Uint8Array>, Option.Option<HttpClientError.ResponseError>>((resume) => {
          exchange.pull((result) => resume(Effect.mapError(result, Option.map((cause) => this.decodeError(cause)))))
          return Effect.sync(() => exchange.stopPull())
        })
      ),
      Effect.sync(() => exchange.abort())
    )
  }

  toJSON(): unknown {
    return IncomingMessage.inspect(this, {
      _id: "@effect/platform/HttpClientResponse",
      request: this.request.toJSON(),
      status: this.status
    })
  }
}

// Requests of `HttpClient.withScope`, whose scope's closing aborts them: the platform client
// handles those (its registry, by the key `@effect/platform` keeps it under).
const scopedRequests = globalValue(
  "@effect/platform/HttpClient/scopedRequests",
  () => new WeakMap<HttpClientRequest.HttpClientRequest, AbortController>()
)

// The origin and path of the URLs requests go to, parsed once each.
const targets = new Map<string, { readonly origin: string; readonly path: string }>()

const targetOf = (
  request: HttpClientRequest.HttpClientRequest
): { readonly origin: string; readonly path: string } | HttpClientError.RequestError => {
  const simple = request.urlParams.length === 0 && Option.isNone(request.hash)
  const known = simple ? targets.get(request.url) : undefined
  if (known !== undefined) return known
  const url = UrlParams.makeUrl(request.url, request.urlParams, request.hash)
  if (url._tag === "Left") return new HttpClientError.RequestError({ request, reason: "InvalidUrl", cause: url.left })
  const target = { origin: url.right.origin, path: url.right.pathname + url.right.search + url.right.hash }
  if (simple) {
    if (targets.size >= 256) targets.clear()
    targets.set(request.url, target)
  }
  return target
}

/**
 * `NodeHttpClient.UndiciRequestOptions` by its key (a context holds services by key), so that
 * looking for it does not load the platform's client.
 *
 * @internal
 */
export const UndiciRequestOptions = Context.GenericTag<NodeHttpClient.UndiciRequestOptions, unknown>(
  "@effect/platform-node/NodeHttpClient/undiciOptions"
)

/**
 * An `HttpClient` on `dispatcher`. Requests with a stream or form-data body, requests that would
 * be traced, requests of `HttpClient.withScope` and requests with `UndiciRequestOptions` in context
 * go through `@effect/platform-node`'s undici client instead (same dispatcher).
 *
 * @internal
 */
export const postprocess = (dispatcher: Undici.Dispatcher): Postprocess => {
  let platform: HttpClient.HttpClient | undefined = undefined
  // The platform's client (and the undici package it imports) is loaded by the first request it
  // takes: a connection whose requests all come here never loads it.
  const viaPlatform = (
    request: HttpClientRequest.HttpClientRequest
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
    platform !== undefined
      ? platform.execute(request)
      : Effect.flatMap(
        Effect.promise(() => import("@effect/platform-node/NodeHttpClient")),
        (NodeHttpClient) => (platform ??= NodeHttpClient.makeUndici(dispatcher)).execute(request)
      )
  const send = (
    request: HttpClientRequest.HttpClientRequest
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> => {
    const body = request.body
    if (body._tag === "Stream" || body._tag === "FormData") return viaPlatform(request)
    const target = targetOf(request)
    if (target instanceof HttpClientError.RequestError) return Effect.fail(target)
    return Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError>((resume) => {
      let exchange: Exchange | undefined = undefined
      exchange = new Exchange(
        (status, rawHeaders) => {
          const response = new UndiciResponse(request, status, rawHeaders, exchange!)
          exchange!.watch(response)
          resume(Effect.succeed(response))
        },
        (cause) => resume(Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause })))
      )
      try {
        dispatcher.dispatch({
          origin: target.origin,
          path: target.path,
          method: request.method as Undici.Dispatcher.HttpMethod,
          headers: request.headers,
          body: body._tag === "Empty" ? null : body.body as Uint8Array,
          // leave timeouts to Effect, as @effect/platform-node does
          headersTimeout: 60 * 60 * 1000,
          bodyTimeout: 0
        }, exchange)
      } catch (cause) {
        resume(Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause })))
        return
      }
      return Effect.sync(() => exchange!.abort())
    })
  }
  return (effect) =>
    Effect.flatMap(
      effect,
      (request) =>
        Effect.withFiberRuntime<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((fiber) =>
          (fiber.getFiberRef(FiberRef.currentTracerEnabled) &&
              !fiber.getFiberRef(HttpClient.currentTracerDisabledWhen)(request)) ||
            scopedRequests.has(request) ||
            Context.getOption(fiber.getFiberRef(FiberRef.currentContext), UndiciRequestOptions)._tag === "Some"
            ? viaPlatform(request)
            : send(request)
        )
    )
}

/** @internal */
export const make = (dispatcher: Undici.Dispatcher): HttpClient.HttpClient =>
  Object.assign(HttpClient.makeWith(postprocess(dispatcher), Effect.succeed), { [RawBodiesTypeId]: true })
