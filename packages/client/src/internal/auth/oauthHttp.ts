/**
 * OAuth's requests to its peers (metadata, registration, tokens) on the host's `HttpClient`:
 * the `fetch` shape `oauth4webapi` expects, and metadata GETs; every body bounded, every
 * request timed out.
 *
 * @internal
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import * as oauth from "oauth4webapi"
import { AuthError } from "../../McpError.js"
import { concatBytes } from "../bytes.js"
import * as Defaults from "../defaults.js"
import * as Limits from "../limits.js"
import * as Policies from "../policies.js"

const maxBodyBytes = Limits.MAX_OAUTH_BODY_BYTES

class BodyTooLarge extends Error {
  readonly _tag = "BodyTooLarge"
  constructor() {
    super(`a response body exceeds ${maxBodyBytes} bytes`)
  }
}

/** Reads at most `maxBodyBytes` of a body, never buffering more. */
const readBounded = (
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<Uint8Array, HttpClientError.ResponseError | BodyTooLarge> =>
  Effect.map(
    Stream.runFoldEffect(
      response.stream,
      { chunks: [] as Array<Uint8Array>, size: 0 },
      (acc, chunk) => {
        const size = acc.size + chunk.length
        if (size > maxBodyBytes) return Effect.fail(new BodyTooLarge())
        acc.chunks.push(chunk)
        return Effect.succeed({ chunks: acc.chunks, size })
      }
    ),
    ({ chunks, size }) => concatBytes(chunks, size)
  )

/** The options of every oauth4webapi call. @internal */
export interface OAuthOptions {
  readonly [oauth.customFetch]: (url: string, init: oauth.CustomFetchOptions<string, unknown>) => Promise<Response>
  readonly [oauth.allowInsecureRequests]: boolean
}

/** @internal */
export interface OAuthHttp {
  readonly oauthOptions: () => OAuthOptions
  /** A metadata document: its status, and its JSON when the status is 200. */
  readonly getJson: (url: string) => Effect.Effect<{ readonly status: number; readonly json: unknown }, AuthError>
}

/** @internal */
export const make = (options: {
  readonly server: string
  /** Plain HTTP passed the policy only for a loopback server talking to loopback peers. */
  readonly allowInsecure: boolean
  readonly fail: (reason: string, message: string) => Effect.Effect<never, AuthError>
}): Effect.Effect<OAuthHttp, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const httpClient = yield* HttpClient.HttpClient
    const runtime = yield* Effect.runtime<never>()
    const { fail, server } = options

    /** The `fetch` shape oauth4webapi calls, on the host's HttpClient. */
    const customFetch = (url: string, init: oauth.CustomFetchOptions<string, unknown>): Promise<Response> => {
      const headers = init.headers
      const contentType = Object.entries(headers).find(([k]) => k.toLowerCase() === "content-type")?.[1]
      const body = init.body === undefined || init.body === null ? undefined : String(init.body)
      let request = HttpClientRequest.make(init.method as "GET")(url).pipe(HttpClientRequest.setHeaders(headers))
      if (body !== undefined) request = HttpClientRequest.bodyText(request, body, contentType)
      const effect = Effect.flatMap(
        httpClient.execute(request),
        (response) =>
          Effect.map(
            readBounded(response),
            (bytes) =>
              // A response body's bytes are never in shared memory, which `BodyInit` refuses.
              new Response(
                response.status === 204 || response.status === 304 ? null : bytes as Uint8Array<ArrayBuffer>,
                {
                  status: response.status,
                  headers: response.headers as Record<string, string>
                }
              )
          )
      ).pipe(Effect.timeout(Defaults.OAUTH_REQUEST_TIMEOUT))
      return Runtime.runPromise(runtime)(effect)
    }

    const oauthOptions = (): OAuthOptions => ({
      [oauth.customFetch]: customFetch,
      [oauth.allowInsecureRequests]: options.allowInsecure
    })

    const getJson = (url: string): Effect.Effect<{ readonly status: number; readonly json: unknown }, AuthError> =>
      httpClient.get(url, { headers: { accept: "application/json" } }).pipe(
        Effect.flatMap((response) =>
          response.status !== 200
            ? Effect.as(Effect.ignore(response.text), { status: response.status, json: undefined })
            : Effect.flatMap(readBounded(response), (bytes) =>
              Effect.try({
                try: () => ({ status: 200, json: JSON.parse(new TextDecoder().decode(bytes)) as unknown }),
                catch: () => new AuthError({ server, reason: "discovery", message: `metadata at ${url} is not JSON` })
              }))
        ),
        Effect.timeout(Defaults.OAUTH_REQUEST_TIMEOUT),
        // Metadata GETs are safe to repeat when the connection failed (not on HTTP answers).
        Effect.retry({ schedule: Policies.oauthTransportRetry, while: (e) => e._tag === "RequestError" }),
        Effect.catchTag(
          "RequestError",
          "ResponseError",
          "TimeoutException",
          (e) => fail("discovery", `fetching ${url} failed: ${e.message}`)
        ),
        Effect.catchTag("BodyTooLarge", () => fail("discovery", `metadata at ${url} exceeds ${maxBodyBytes} bytes`))
      )

    return { oauthOptions, getJson }
  })
