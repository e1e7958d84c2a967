/**
 * What the HTTP transports share: requests through our own redirect loop (credentials never
 * follow a redirect to another origin), the retry policy, and bounded body reading (SSE
 * reading is in `sseBody.ts`).
 *
 * @internal
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import type { AuthFailure, McpAuth } from "../../McpAuth.js"
import { AuthError, ConnectionError, ResponseTooLargeError, TransientServerError } from "../../McpError.js"
import { concatBytes } from "../bytes.js"
import * as Defaults from "../defaults.js"
import { classify, withDetail } from "../failure.js"
import * as Limits from "../limits.js"
import * as Policies from "../policies.js"
import * as Sha256 from "../sha256.js"
import { decompressBody } from "../wire/decompress.js"
import { BodyReaderTypeId, hasRawBodies } from "./bodyReader.js"
import type { BodyReader, BodyReaderPause } from "./bodyReader.js"
import * as Cors from "./cors.js"

/** @internal */
export interface HttpSettings {
  readonly server: string
  readonly client: HttpClient.HttpClient
  /** Configured headers (evaluated per request), sent on every request to the server's own origin. */
  readonly headers: () => Record<string, string>
  /** Whether a host hook changes requests in ways the client cannot see (then caches are not reused). */
  readonly customised: boolean
  readonly auth: McpAuth | undefined
  /** Told when handling a challenge starts and ends (the peer stops request deadlines meanwhile). */
  readonly onAuthorizing: ((active: boolean) => void) | undefined
  readonly retries: number
  readonly retryBase: Duration.Duration
  readonly maxBodyBytes: number
  readonly maxEventBytes: number
  readonly retryFloor: Duration.Duration
  /**
   * Whether response bodies arrive with their content coding on (the client says so, or one of
   * its responses did): then we ask for gzip and inflate it ourselves; otherwise the client
   * decoded them, as `fetch` does, and `Content-Encoding` is only a record of what was sent.
   */
  rawBodies: boolean
}

/** @internal */
export interface HttpOptions {
  /** Sent on every request; a function is called per request (rotating credentials). */
  readonly headers?: Record<string, string> | (() => Record<string, string>) | undefined
  /** Attempts after the first for transport failures and HTTP 5xx; never for `tools/call` (default 3). */
  readonly retries?: number | undefined
  /** First backoff delay; doubles per attempt (default 200 ms). */
  readonly retryBase?: Duration.DurationInput | undefined
  /**
   * Cap on a JSON response body after decompression, and on one SSE event (default 64 MiB). An
   * SSE stream as a whole has no cap: an event over it is skipped and the stream goes on.
   */
  readonly maxDecompressedBodyBytes?: number | undefined
  /** Customises the underlying `HttpClient` (TLS agents, proxies, extra middleware). */
  readonly httpClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
  /** Lowest reconnect delay a server's `retry:` can ask for (default 100 ms). */
  readonly sseRetryFloor?: Duration.DurationInput | undefined
  /** Credentials for every request and the handling of 401/403 challenges (e.g. OAuth). */
  readonly auth?: McpAuth | undefined
}

/** @internal */
export const settings = (
  server: string,
  options: HttpOptions,
  sink?: { readonly onAuthorizing?: ((active: boolean) => void) | undefined }
): Effect.Effect<HttpSettings, never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (base) => {
    // No spans or trace headers: they would cost per request and tell the server about the host.
    const quiet = HttpClient.transformResponse(base, quietly)
    const maxBodyBytes = options.maxDecompressedBodyBytes ?? Limits.MAX_BODY_BYTES
    const client = options.httpClient === undefined ? quiet : options.httpClient(quiet)
    return {
      server,
      client,
      headers: typeof options.headers === "function"
        ? options.headers
        : ((fixed) => () => fixed)(options.headers ?? {}),
      customised: options.httpClient !== undefined,
      auth: options.auth,
      onAuthorizing: sink?.onAuthorizing,
      retries: options.retries ?? Defaults.HTTP_RETRIES,
      retryBase: Duration.decode(options.retryBase ?? Defaults.HTTP_RETRY_BASE),
      maxBodyBytes,
      maxEventBytes: maxBodyBytes,
      retryFloor: Duration.decode(options.sseRetryFloor ?? Limits.SSE_RETRY_FLOOR),
      // Middleware over a raw client makes an unmarked client: its first response tells.
      rawBodies: hasRawBodies(options.httpClient === undefined ? base : client)
    }
  })

const alwaysTrue = () => true

/**
 * Runs `effect` with the `HttpClient`'s spans and trace propagation off, as
 * `withTracerPropagation(false)` and `withTracerDisabledWhen(() => true)` do; for free in a fiber
 * forked from a {@link quietRuntime} (each `Effect.locally` costs an acquire/release per request).
 */
const quietly = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime<A, E, R>((fiber) =>
    fiber.getFiberRef(HttpClient.currentTracerDisabledWhen) === alwaysTrue &&
      !fiber.getFiberRef(HttpClient.currentTracerPropagation)
      ? effect
      : Effect.locally(
        Effect.locally(effect, HttpClient.currentTracerDisabledWhen, alwaysTrue),
        HttpClient.currentTracerPropagation,
        false
      )
  )

/**
 * `runtime` with the fiber refs the settings' client sets per request already set: the fibers it
 * forks (the exchanges) reach the `HttpClient` without an `Effect.locally` per request.
 *
 * @internal
 */
export const quietRuntime = <R>(runtime: Runtime.Runtime<R>): Runtime.Runtime<R> =>
  Runtime.setFiberRef(
    Runtime.setFiberRef(runtime, HttpClient.currentTracerDisabledWhen, alwaysTrue),
    HttpClient.currentTracerPropagation,
    false
  )

const REDIRECTS = new Set([301, 302, 307, 308])
// What may follow a redirect to another origin: protocol headers, nothing configured, no
// credentials, no session.
const CROSS_ORIGIN_SAFE =
  /^(accept|accept-encoding|content-type|content-length|mcp-protocol-version|mcp-method|mcp-name|mcp-param-.*)$/

/** The origin of a URL, for comparisons and messages (never its path or query). */
/** @internal */
export const originOf = (url: string): string => {
  try {
    return new URL(url).origin
  } catch {
    return "invalid-url"
  }
}

/**
 * A failed request or response as a `ConnectionError` with its reason and low-level cause (the
 * `HttpClientError` itself is not kept: its request holds the whole URL and the headers); the
 * message names the origin only. A string is a breach of the transport's rules by the server.
 *
 * @internal
 */
export const transportError = (s: HttpSettings, error: HttpClientError.HttpClientError | string) => {
  if (typeof error === "string") return new ConnectionError({ server: s.server, message: error, reason: "protocol" })
  const failure = classify(error.cause)
  const origin = originOf(error.request.url)
  const page = error._tag === "RequestError" ? Cors.suspectedBy(error.request.url, error.cause) : undefined
  if (page !== undefined) {
    return new ConnectionError({
      server: s.server,
      message: withDetail(
        `could not reach ${origin} from the page at ${page}, likely CORS: the server must allow this origin and expose its MCP headers (docs/browser.md)`,
        failure
      ),
      cause: error.cause,
      reason: "cors"
    })
  }
  const what = error._tag === "RequestError"
    ? error.reason === "Transport" ? `could not reach ${origin}` : `could not send a request to ${origin}`
    : `the response from ${origin} broke off`
  return new ConnectionError({
    server: s.server,
    message: withDetail(what, failure),
    cause: error.cause,
    reason: failure.reason
  })
}

/**
 * Executes a request, following redirects ourselves: to another origin, configured headers and
 * credentials are dropped.
 *
 * @internal
 */
export const execute = (
  s: HttpSettings,
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<HttpClientResponse.HttpClientResponse, ConnectionError> => {
  const loop = (
    current: HttpClientRequest.HttpClientRequest,
    hops: number
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, ConnectionError> =>
    Effect.matchEffect(s.client.execute(current), {
      onFailure: (e) => Effect.fail(transportError(s, e)),
      onSuccess: (response) => {
        if (!s.rawBodies && hasRawBodies(response)) s.rawBodies = true
        if (!REDIRECTS.has(response.status)) return Effect.succeed(response)
        const location = response.headers["location"]
        if (location === undefined) return Effect.succeed(response)
        if (hops >= Limits.MAX_REDIRECTS) return Effect.fail(transportError(s, "too many redirects"))
        let target: URL
        try {
          target = new URL(location, current.url)
        } catch {
          return Effect.fail(transportError(s, "redirect to an invalid URL"))
        }
        if (target.protocol !== "http:" && target.protocol !== "https:") {
          return Effect.fail(transportError(s, "redirect to a non-HTTP URL"))
        }
        const next = target.origin === originOf(request.url)
          ? HttpClientRequest.setUrl(current, target.toString())
          : HttpClientRequest.make(current.method)(target.toString(), {
            headers: Headers.fromInput(
              Object.entries(current.headers).filter(([name]) => CROSS_ORIGIN_SAFE.test(name.toLowerCase()))
            ),
            body: current.body
          })
        return Effect.zipRight(Effect.ignore(response.text), loop(next, hops + 1))
      }
    })
  return loop(request, 0)
}

/**
 * Executes a request with the auth headers of the moment. A 401/403 goes to the auth service
 * (which may run a flow) and the request is sent again once with fresh headers; refused, it
 * fails closed with `AuthError`.
 *
 * @internal
 */
export const executeAuthorized = (
  s: HttpSettings,
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<HttpClientResponse.HttpClientResponse, ConnectionError | AuthFailure> => {
  const auth = s.auth
  const refusal = (response: HttpClientResponse.HttpClientResponse) =>
    new AuthError({
      server: s.server,
      reason: response.status === 401 ? "unauthorized" : "forbidden",
      message: `HTTP ${response.status} from ${originOf(request.url)}`,
      status: response.status
    })
  if (auth === undefined) {
    // Nothing to add and nobody to ask: a challenge is refused as it comes.
    return Effect.flatMap(execute(s, request), (response) =>
      response.status !== 401 && response.status !== 403
        ? Effect.succeed(response)
        : Effect.zipRight(discard(response), Effect.fail(refusal(response))))
  }
  // One retry after a challenge the auth service accepted, and one after a challenge carrying a
  // DPoP nonce (RFC 9449 §9), which may come right after the first: a new token, then the nonce.
  const attempt = (
    retried: { readonly challenge: boolean; readonly nonce: boolean }
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, ConnectionError | AuthFailure> =>
    Effect.flatMap(
      auth.headers(request.url, request.method),
      (headers) =>
        Effect.flatMap(execute(s, HttpClientRequest.setHeaders(request, headers)), (response) => {
          if (response.status !== 401 && response.status !== 403) return Effect.succeed(response)
          const status = response.status
          const refused = refusal(response)
          const dpopNonce = response.headers["dpop-nonce"]
          return Effect.zipRight(
            discard(response),
            (dpopNonce === undefined ? retried.challenge : retried.nonce)
              ? Effect.fail(refused)
              : Effect.flatMap(
                authorizing(
                  s,
                  auth.challenge({
                    url: request.url,
                    status,
                    wwwAuthenticate: response.headers["www-authenticate"],
                    dpopNonce
                  })
                ),
                (again) =>
                  again
                    ? attempt(dpopNonce === undefined ? { ...retried, challenge: true } : { ...retried, nonce: true })
                    : Effect.fail(refused)
              )
          )
        })
    )
  return attempt({ challenge: false, nonce: false })
}

/** Runs a challenge's handling with the peer told, so request deadlines leave out its time. */
const authorizing = <A, E>(s: HttpSettings, handling: Effect.Effect<A, E>): Effect.Effect<A, E> => {
  const tell = s.onAuthorizing
  return tell === undefined ? handling : Effect.acquireUseRelease(
    Effect.sync(() => tell(true)),
    () => handling,
    () => Effect.sync(() => tell(false))
  )
}

/**
 * Retries `effect` on transport failures and HTTP 5xx with exponential backoff, unless the
 * method must never be repeated (the policy is `policies.ts`'s `retryTransient`).
 *
 * @internal
 */
export const withRetries: <A, E extends { readonly _tag: string }>(
  s: HttpSettings,
  method: string | undefined,
  effect: Effect.Effect<A, E>
) => Effect.Effect<A, E> = Policies.retryTransient

/** @internal */
export const transient = (s: HttpSettings, method: string, status: number) =>
  new TransientServerError({ server: s.server, method, status })

/**
 * `headers` asking for gzip or deflate when the client hands bodies over undecoded. Never through
 * a client that decodes: `fetch` asks for the codings it decodes (in a browser the header is not
 * the caller's to set), and one of ours could only disagree with them.
 *
 * @internal
 */
export const withAcceptEncoding = (s: HttpSettings, headers: Record<string, string>): Record<string, string> => {
  if (s.rawBodies) headers["accept-encoding"] = "gzip, deflate"
  return headers
}

/**
 * The content coding still on a response's body: none when the client decoded it (a `fetch`
 * body's `Content-Encoding` says what was sent, not what arrives).
 *
 * @internal
 */
export const codingOf = (s: HttpSettings, response: HttpClientResponse.HttpClientResponse): string | undefined =>
  s.rawBodies ? response.headers["content-encoding"] : undefined

/**
 * The body, decoded if the client did not, under `maxBytes` (the body cap unless said otherwise),
 * as a stream.
 *
 * @internal
 */
export const bodyStream = (
  s: HttpSettings,
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number = s.maxBodyBytes
): Stream.Stream<Uint8Array, ConnectionError | ResponseTooLargeError> =>
  decompressBody(
    Stream.mapError(response.stream, (e) => transportError(s, e)),
    codingOf(s, response),
    maxBytes,
    (reason, limit) =>
      reason === "too-large"
        ? new ResponseTooLargeError({ server: s.server, limit })
        : transportError(s, `response body: ${reason}`)
  )

/**
 * Reads a little of a body nobody needs (at most 4 chunks), so that its connection can be reused;
 * through the response's body reader when it has one (a `Stream` costs a channel, scopes and a
 * fiber: most such bodies, a 202's, are empty).
 *
 * @internal
 */
export const discard = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<void> => {
  const reader = readerOf(response)
  if (reader === undefined) return Effect.ignore(Stream.runDrain(Stream.take(response.stream, 4)))
  let chunks = 0
  return Effect.ignore(reader[BodyReaderTypeId](() => ++chunks < 4))
}

/** @internal */
export const readerOf = (response: HttpClientResponse.HttpClientResponse): BodyReader | undefined =>
  typeof (response as Partial<BodyReader>)[BodyReaderTypeId] === "function"
    ? response as unknown as BodyReader
    : undefined

/** @internal */
export const isIdentity = (encoding: string | undefined) => encoding === undefined || encoding === "identity"

const utf8 = new TextDecoder()

/**
 * Hands a body's chunks to `onChunk` as the response delivers them, stopping (and failing with
 * `ResponseTooLargeError`) once they add up past the cap; succeeds with the byte count.
 */
const readCapped = (
  s: HttpSettings,
  reader: BodyReader,
  onChunk: (chunk: Uint8Array) => void
): Effect.Effect<number, ConnectionError | ResponseTooLargeError> => {
  let total = 0
  return Effect.flatMap(
    readChunks(s, reader, (chunk) => {
      total += chunk.length
      if (total > s.maxBodyBytes) return false
      onChunk(chunk)
      return true
    }),
    () =>
      total > s.maxBodyBytes
        ? Effect.fail(new ResponseTooLargeError({ server: s.server, limit: s.maxBodyBytes }))
        : Effect.succeed(total)
  )
}

/**
 * Hands a body's chunks to `onChunk` as they arrive, until it returns `false` or the body ends;
 * a pause returned stops the socket until its `resume` is called (see `BodyReader`).
 *
 * @internal
 */
export const readChunks = (
  s: HttpSettings,
  reader: BodyReader,
  onChunk: (chunk: Uint8Array) => boolean | BodyReaderPause
): Effect.Effect<void, ConnectionError> =>
  Effect.mapError(reader[BodyReaderTypeId](onChunk), (e) => transportError(s, e))

/** The whole body as text, under the cap. @internal */
export const readText = (
  s: HttpSettings,
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<string, ConnectionError | ResponseTooLargeError> =>
  Effect.suspend(() => {
    const headers = response.headers
    // `Content-Length` counts the bytes sent: the decoded length only of a body sent uncoded.
    const declared = Number(headers["content-length"])
    const known = isIdentity(headers["content-encoding"]) && Number.isInteger(declared) && declared >= 0
    if (known && declared > s.maxBodyBytes) {
      return Effect.zipRight(
        Effect.ignore(Stream.runDrain(Stream.take(response.stream, 1))),
        Effect.fail(new ResponseTooLargeError({ server: s.server, limit: s.maxBodyBytes }))
      )
    }
    const reader = isIdentity(codingOf(s, response)) ? readerOf(response) : undefined
    if (reader !== undefined) {
      // The response hands its chunks over as they arrive: kept, decoded once at the end.
      const chunks: Array<Uint8Array> = []
      return Effect.map(readCapped(s, reader, (chunk) => chunks.push(chunk)), (total) => {
        return utf8.decode(concatBytes(chunks, total))
      })
    }
    // An uncompressed body whose declared length fits the cap is read in one go (no stream
    // machinery per response); anything else is read as a bounded stream.
    if (known) return Effect.mapError(response.text, (e) => transportError(s, e))
    const decoder = new TextDecoder()
    const parts: Array<string> = []
    return Effect.map(
      Stream.runForEach(bodyStream(s, response), (chunk) =>
        Effect.sync(() => {
          parts.push(decoder.decode(chunk, { stream: true }))
        })),
      () => parts.join("") + decoder.decode()
    )
  })

/** The floored reconnect delay for a server's `retry:` value. @internal */
export const retryDelay = (s: HttpSettings, millis: number | undefined, fallback: Duration.Duration) =>
  millis === undefined ? fallback : Duration.max(Duration.millis(millis), s.retryFloor)

/** Headers safe to echo: printable ASCII, bounded. @internal */
export const isSafeHeaderValue = (value: string, max = 1024): boolean =>
  value.length > 0 && value.length <= max && /^[\x21-\x7e]+$/.test(value)

const digests = new Map<string, string>()

/**
 * The SHA-256 (hex) of the `Authorization` value among `headers`, the key that binds private
 * cache entries to the credential a request carried. Remembered per value.
 *
 * @internal
 */
export const authorizationKey = (headers: Record<string, string>): Effect.Effect<string | undefined> => {
  const name = Object.keys(headers).find((h) => h.toLowerCase() === "authorization")
  if (name === undefined) return Effect.succeed(undefined)
  const value = headers[name]!
  const known = digests.get(value)
  if (known !== undefined) return Effect.succeed(known)
  // An insecure browser page has no digest: a key of this process alone, never the credential.
  if (!Sha256.available()) return Effect.succeed(remember(value, `unhashed:${Sha256.randomUuid()}`))
  return Effect.map(
    Effect.promise(() => Sha256.sha256Hex(value)),
    (hex) => remember(value, hex)
  )
}

const remember = (value: string, key: string): string => {
  if (digests.size >= 64) digests.clear()
  digests.set(value, key)
  return key
}
