/** The fake protected resource and authorization server of the OAuth tests, behind an `HttpClient`. */
import * as HttpClient from "@effect/platform/HttpClient"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { bodyText, json } from "./fakeHttp.js"

export const serverUrl = "https://mcp.example.com/mcp"
export const issuer = "https://auth.example.com"
export const prmUrl = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
export const challenge401 = `Bearer resource_metadata="${prmUrl}"`

export interface Seen {
  readonly method: string
  readonly url: string
  readonly body: string
  readonly authorization: string | undefined
}

/** A fake protected resource + authorization server behind an `HttpClient`. */
export const fakeAuthServer = (overrides: {
  readonly metadata?: Record<string, unknown>
  readonly prm?: Record<string, unknown>
  readonly token?: (form: URLSearchParams) => Record<string, unknown>
  /** The token endpoint's status for a request (default 200). */
  readonly tokenStatus?: (form: URLSearchParams) => number
} = {}) => {
  const seen: Array<Seen> = []
  let tokens = 0
  const metadata = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    code_challenge_methods_supported: ["S256"],
    response_types_supported: ["code"],
    authorization_response_iss_parameter_supported: true,
    ...overrides.metadata
  }
  const prm = { resource: serverUrl, authorization_servers: [issuer], ...overrides.prm }
  const client = HttpClient.make((request, url) => {
    const body = bodyText(request)
    seen.push({ method: request.method, url: url.href, body, authorization: request.headers["authorization"] })
    const path = `${url.origin}${url.pathname}`
    if (path === prmUrl) return Effect.succeed(json(request, prm))
    if (path === `${issuer}/.well-known/oauth-authorization-server`) return Effect.succeed(json(request, metadata))
    if (path === `${issuer}/register`) {
      return Effect.succeed(
        json(request, { client_id: "dcr-client", redirect_uris: ["http://127.0.0.1:8976/callback"] }, 201)
      )
    }
    if (path === `${issuer}/token`) {
      tokens++
      const form = new URLSearchParams(body)
      const answer = overrides.token?.(form) ??
        { access_token: `token-${tokens}`, token_type: "Bearer", expires_in: 3600, scope: form.get("scope") ?? "" }
      return Effect.succeed(json(request, answer, overrides.tokenStatus?.(form) ?? 200))
    }
    return Effect.succeed(json(request, { error: "not_found" }, 404))
  })
  return { seen, layer: Layer.succeed(HttpClient.HttpClient, client) }
}

/** The interactive step of a server that approves at once, with a callback built by `callback`. */
export const approve = (callback: (auth: URL) => string) => (auth: URL) => Effect.succeed(new URL(callback(auth)))

export const goodCallback = (auth: URL) =>
  `http://127.0.0.1:8976/callback?code=abc&state=${auth.searchParams.get("state")}&iss=${encodeURIComponent(issuer)}`

export const run = <A, E>(
  fake: ReturnType<typeof fakeAuthServer>,
  options: Omit<OAuth.Options, "serverUrl">,
  use: (auth: OAuth.OAuthClient) => Effect.Effect<A, E>
) => Effect.flatMap(OAuth.make({ serverUrl, ...options }), use).pipe(Effect.provide(fake.layer))

export const tokenRequests = (seen: ReadonlyArray<Seen>) => seen.filter((s) => s.url === `${issuer}/token`)
