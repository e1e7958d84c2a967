/**
 * DPoP (RFC 9449) on request: proofs at the token endpoint, `Authorization: DPoP` with a fresh
 * proof on every request through the HTTP transports' `executeAuthorized`, the nonces of the
 * authorization server and of the resource, and the binding of tokens to the client's key. The
 * fake verifies every proof's signature, as a DPoP server would.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { assert, describe, it } from "@effect/vitest"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as oauth from "oauth4webapi"
import * as Http from "../src/internal/http/http.js"
import { bodyText } from "./utils/fakeHttp.js"

const serverUrl = "https://mcp.example.com/mcp"
const issuer = "https://auth.example.com"
const prmUrl = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
const tokenEndpoint = `${issuer}/token`
const asNonce = "as-nonce-1"
const rsNonce = "rs-nonce-1"

const b64u = (bytes: ArrayBuffer | Uint8Array): string => Buffer.from(new Uint8Array(bytes)).toString("base64url")
const json = (segment: string): Record<string, unknown> => JSON.parse(Buffer.from(segment, "base64url").toString())

/** RFC 7638 thumbprint of an EC public key. */
const thumbprint = async (jwk: Record<string, unknown>): Promise<string> =>
  b64u(
    await crypto.subtle.digest(
      "SHA-256",
      new TextEncoder().encode(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
    )
  )

interface Proof {
  readonly payload: Record<string, unknown>
  readonly jkt: string
}

/** Verifies a proof the way a DPoP server does (RFC 9449 §4.3): typ, a public jwk, the signature. */
const verifyProof = async (jwt: string | undefined): Promise<Proof | undefined> => {
  if (jwt === undefined) return undefined
  const [h, p, signature] = jwt.split(".")
  const header = json(h!)
  const jwk = header.jwk as Record<string, unknown>
  if (header.typ !== "dpop+jwt" || header.alg !== "ES256" || jwk.d !== undefined) return undefined
  const key = await crypto.subtle.importKey("jwk", jwk, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"])
  const valid = await crypto.subtle.verify(
    { name: "ECDSA", hash: "SHA-256" },
    key,
    Buffer.from(signature!, "base64url"),
    new TextEncoder().encode(`${h}.${p}`)
  )
  return valid ? { payload: json(p!), jkt: await thumbprint(jwk) } : undefined
}

const sha256 = async (text: string) => b64u(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)))

/** An access token as a JWT naming the key it is bound to (the signature is not checked here). */
const boundToken = (jkt: string, n: number) =>
  `${b64u(Buffer.from(JSON.stringify({ alg: "ES256", typ: "at+jwt" })))}.${
    b64u(Buffer.from(JSON.stringify({ sub: `user-${n}`, cnf: { jkt } })))
  }.c2ln`

interface TokenRequest {
  readonly form: URLSearchParams
  readonly proof: Proof | undefined
}

interface ResourceRequest {
  readonly method: string
  readonly url: string
  readonly authorization: string | undefined
  readonly proof: Proof | undefined
}

/**
 * A resource that wants DPoP and its authorization server. Tokens are JWTs bound to the key of the
 * token request's proof (or to `boundTo`); the resource accepts a request only with `DPoP <token>`
 * and a valid proof for that method, URL and token, each `jti` once.
 */
const fakeDpop = (options: {
  readonly metadata?: Record<string, unknown>
  readonly tokenType?: string
  readonly boundTo?: string
  readonly requireNonce?: boolean
  readonly expiresIn?: number
} = {}) => {
  const tokenRequests: Array<TokenRequest> = []
  const resourceRequests: Array<ResourceRequest> = []
  const issued = new Map<string, string>()
  const jtis = new Set<string>()
  const metadata = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: tokenEndpoint,
    registration_endpoint: `${issuer}/register`,
    code_challenge_methods_supported: ["S256"],
    response_types_supported: ["code"],
    dpop_signing_alg_values_supported: ["ES256"],
    ...options.metadata
  }
  const answer = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } })
  const handle = async (request: HttpClientRequest.HttpClientRequest, url: URL): Promise<Response> => {
    const body = bodyText(request)
    const path = `${url.origin}${url.pathname}`
    const proof = await verifyProof(request.headers["dpop"])
    if (path === prmUrl) return answer({ resource: serverUrl, authorization_servers: [issuer] })
    if (path === `${issuer}/.well-known/oauth-authorization-server`) return answer(metadata)
    if (path === `${issuer}/register`) return answer({ client_id: "dcr-client" }, 201)
    if (path === tokenEndpoint) {
      const form = new URLSearchParams(body)
      tokenRequests.push({ form, proof })
      if (request.headers["dpop"] !== undefined) {
        if (proof === undefined || proof.payload.htm !== "POST" || proof.payload.htu !== tokenEndpoint) {
          return answer({ error: "invalid_dpop_proof" }, 400)
        }
        if (options.requireNonce === true && proof.payload.nonce !== asNonce) {
          return answer({ error: "use_dpop_nonce" }, 400, { "dpop-nonce": asNonce })
        }
      }
      const token = boundToken(options.boundTo ?? proof?.jkt ?? "none", tokenRequests.length)
      issued.set(token, proof?.jkt ?? "none")
      return answer({
        access_token: token,
        token_type: options.tokenType ?? (proof === undefined ? "Bearer" : "DPoP"),
        expires_in: options.expiresIn ?? 3600,
        refresh_token: `refresh-${tokenRequests.length}`
      })
    }
    if (path === serverUrl) {
      const authorization = request.headers["authorization"]
      resourceRequests.push({ method: request.method, url: url.href, authorization, proof })
      const challenge = `DPoP resource_metadata="${prmUrl}"`
      const token = /^DPoP (.+)$/.exec(authorization ?? "")?.[1]
      if (token === undefined || !issued.has(token)) return answer({}, 401, { "www-authenticate": challenge })
      const p = proof?.payload
      const bound = proof !== undefined && issued.get(token) === proof.jkt
      if (
        !bound || p?.htm !== request.method || p.htu !== serverUrl || p.ath !== await sha256(token) ||
        jtis.has(String(p.jti))
      ) return answer({}, 401, { "www-authenticate": `DPoP error="invalid_dpop_proof"` })
      jtis.add(String(p.jti))
      if (options.requireNonce === true && p.nonce !== rsNonce) {
        return answer({}, 401, { "www-authenticate": `DPoP error="use_dpop_nonce"`, "dpop-nonce": rsNonce })
      }
      return answer({ ok: true })
    }
    return answer({ error: "not_found" }, 404)
  }
  const client = HttpClient.make((request, url) =>
    Effect.map(Effect.promise(() => handle(request, url)), (response) => HttpClientResponse.fromWeb(request, response))
  )
  return { tokenRequests, resourceRequests, layer: Layer.succeed(HttpClient.HttpClient, client) }
}

const authorized: Array<URL> = []
const approve = (auth: URL) => {
  authorized.push(auth)
  return Effect.succeed(
    new URL(`http://127.0.0.1:8976/callback?code=abc&state=${auth.searchParams.get("state")}`)
  )
}

/** Requests through the HTTP transports' path (`executeAuthorized`), with `auth`. */
const send = (
  fake: ReturnType<typeof fakeDpop>,
  auth: OAuth.OAuthClient,
  request: HttpClientRequest.HttpClientRequest
) =>
  Effect.flatMap(
    Http.settings(serverUrl, { auth, retries: 0 }),
    (s) => Effect.map(Http.executeAuthorized(s, request), (response) => response.status)
  ).pipe(Effect.provide(fake.layer))

const make = (fake: ReturnType<typeof fakeDpop>, options: Omit<OAuth.Options, "serverUrl"> = {}) =>
  OAuth.make({ serverUrl, authorize: approve, dpop: true, ...options }).pipe(Effect.provide(fake.layer))

describe("OAuth with DPoP", () => {
  it.effect("proves possession at the token endpoint and with a fresh proof on every request", () =>
    Effect.gen(function*() {
      authorized.length = 0
      const fake = fakeDpop()
      const auth = yield* make(fake)
      const statuses = [
        yield* send(fake, auth, HttpClientRequest.post(serverUrl)),
        yield* send(fake, auth, HttpClientRequest.post(`${serverUrl}?session=1`)),
        yield* send(fake, auth, HttpClientRequest.get(serverUrl)),
        yield* send(fake, auth, HttpClientRequest.del(serverUrl))
      ]
      assert.deepStrictEqual(statuses, [200, 200, 200, 200])
      const [tokenRequest] = fake.tokenRequests
      const jkt = tokenRequest!.proof!.jkt
      assert.strictEqual(fake.tokenRequests.length, 1)
      assert.strictEqual(tokenRequest!.form.get("grant_type"), "authorization_code")
      // The code is bound to the same key (RFC 9449 §10).
      assert.strictEqual(authorized[0]!.searchParams.get("dpop_jkt"), jkt)
      const sent = fake.resourceRequests.filter((r) => r.authorization !== undefined)
      assert.deepStrictEqual(sent.map((r) => [r.method, r.proof?.payload.htm, r.proof?.payload.htu, r.proof?.jkt]), [
        ["POST", "POST", serverUrl, jkt],
        ["POST", "POST", serverUrl, jkt],
        ["GET", "GET", serverUrl, jkt],
        ["DELETE", "DELETE", serverUrl, jkt]
      ])
      assert.isTrue(sent.every((r) => r.authorization?.startsWith("DPoP ")))
      assert.strictEqual(new Set(sent.map((r) => r.proof?.payload.jti)).size, sent.length)
    }))

  it.effect("retries once with the nonce of the authorization server and once with the resource's", () =>
    Effect.gen(function*() {
      const fake = fakeDpop({ requireNonce: true })
      const auth = yield* make(fake)
      // No token → a flow (the token request needs the AS nonce) → the token → the RS nonce.
      assert.strictEqual(yield* send(fake, auth, HttpClientRequest.post(serverUrl)), 200)
      assert.deepStrictEqual(fake.tokenRequests.map((r) => r.proof?.payload.nonce), [undefined, asNonce])
      assert.deepStrictEqual(fake.resourceRequests.map((r) => r.proof?.payload.nonce), [undefined, undefined, rsNonce])
      // Later requests carry the nonce at once.
      assert.strictEqual(yield* send(fake, auth, HttpClientRequest.post(serverUrl)), 200)
      assert.strictEqual(fake.resourceRequests.length, 4)
      assert.strictEqual(fake.resourceRequests[3]!.proof?.payload.nonce, rsNonce)
    }))

  it.effect("refreshes with a proof", () =>
    Effect.gen(function*() {
      const fake = fakeDpop({ expiresIn: 1 })
      const auth = yield* make(fake)
      assert.strictEqual(yield* send(fake, auth, HttpClientRequest.post(serverUrl)), 200)
      assert.deepStrictEqual(fake.tokenRequests.map((r) => r.form.get("grant_type")), [
        "authorization_code",
        "refresh_token"
      ])
      assert.strictEqual(fake.tokenRequests[1]!.proof?.payload.htu, tokenEndpoint)
      assert.strictEqual(fake.tokenRequests[1]!.proof?.jkt, fake.tokenRequests[0]!.proof?.jkt)
    }))

  it.effect("refuses a Bearer token when DPoP is on", () =>
    Effect.gen(function*() {
      const fake = fakeDpop({ tokenType: "Bearer" })
      const auth = yield* make(fake)
      const result = yield* Effect.either(send(fake, auth, HttpClientRequest.post(serverUrl)))
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError" && result.left.reason === "token")
      assert.deepStrictEqual(yield* auth.headers(serverUrl), {})
    }))

  it.effect("refuses a DPoP token when DPoP is off, and sends no proof", () =>
    Effect.gen(function*() {
      const fake = fakeDpop({ tokenType: "DPoP" })
      const auth = yield* make(fake, { dpop: false })
      const result = yield* Effect.either(send(fake, auth, HttpClientRequest.post(serverUrl)))
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError" && result.left.reason === "token")
      assert.deepStrictEqual(fake.tokenRequests.map((r) => r.proof), [undefined])
      assert.deepStrictEqual(yield* auth.headers(serverUrl), {})
    }))

  it.effect("refuses a token bound to another key", () =>
    Effect.gen(function*() {
      const fake = fakeDpop({ boundTo: "someone-else" })
      const auth = yield* make(fake)
      const result = yield* Effect.either(send(fake, auth, HttpClientRequest.post(serverUrl)))
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError" && result.left.reason === "dpop")
    }))

  it.effect("refuses an authorization server without DPoP before the user is sent anywhere", () =>
    Effect.gen(function*() {
      authorized.length = 0
      const fake = fakeDpop({ metadata: { dpop_signing_alg_values_supported: undefined } })
      const auth = yield* make(fake)
      const result = yield* Effect.either(send(fake, auth, HttpClientRequest.post(serverUrl)))
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError" && result.left.reason === "dpop")
      assert.deepStrictEqual(authorized, [])
      assert.deepStrictEqual(fake.tokenRequests, [])
    }))

  it.effect("uses a stored DPoP token only with the key it is bound to", () =>
    Effect.gen(function*() {
      const fake = fakeDpop()
      const storage = yield* OAuth.makeMemoryStorage
      const keyPair = yield* Effect.promise(() => oauth.generateKeyPair("ES256"))
      const first = yield* make(fake, { storage, dpop: { keyPair } })
      assert.strictEqual(yield* send(fake, first, HttpClientRequest.post(serverUrl)), 200)
      // The same key (a host that keeps it) resumes the token; another key does not use it.
      const again = yield* make(fake, { storage, dpop: { keyPair } })
      const other = yield* make(fake, { storage })
      assert.isTrue((yield* again.headers(serverUrl)).Authorization?.startsWith("DPoP "))
      assert.deepStrictEqual(yield* other.headers(serverUrl), {})
      // And without DPoP, a stored DPoP token is never sent as a Bearer token.
      assert.deepStrictEqual(yield* (yield* make(fake, { storage, dpop: false })).headers(serverUrl), {})
    }))
})
