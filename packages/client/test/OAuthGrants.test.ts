/**
 * Grants without a browser beyond client credentials: the JWT bearer grant with a workload's
 * assertion (workload identity federation, RFC 7523) and enterprise-managed authorization (the
 * identity assertion exchanged at the identity provider for an ID-JAG, RFC 8693, then presented
 * in a JWT bearer grant).
 */
import * as HttpClient from "@effect/platform/HttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { bodyText, json } from "./utils/fakeHttp.js"

const serverUrl = "https://mcp.example.com/mcp"
const issuer = "https://auth.example.com"
const idpIssuer = "https://idp.example.com"
const prmUrl = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
const challenge401 = { url: serverUrl, status: 401 as const, wwwAuthenticate: `Bearer resource_metadata="${prmUrl}"` }
const jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
const idJag = "urn:ietf:params:oauth:token-type:id-jag"

interface Seen {
  readonly url: string
  readonly form: URLSearchParams
  readonly authorization: string | undefined
}

/** A resource, its authorization server (JWT bearer only) and an enterprise identity provider. */
const fakeGrants = (options: {
  readonly token?: (form: URLSearchParams) => { readonly status: number; readonly body: unknown }
  readonly exchange?: (form: URLSearchParams) => Record<string, unknown>
} = {}) => {
  const seen: Array<Seen> = []
  let issued = 0
  const client = HttpClient.make((request, url) => {
    const body = bodyText(request)
    const path = `${url.origin}${url.pathname}`
    if (request.method === "POST") {
      seen.push({ url: path, form: new URLSearchParams(body), authorization: request.headers["authorization"] })
    }
    if (path === prmUrl) return Effect.succeed(json(request, { resource: serverUrl, authorization_servers: [issuer] }))
    if (path === `${issuer}/.well-known/oauth-authorization-server`) {
      return Effect.succeed(json(request, {
        issuer,
        token_endpoint: `${issuer}/token`,
        grant_types_supported: [jwtBearer],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "none"]
      }))
    }
    // The identity provider publishes OpenID Connect metadata only.
    if (path === `${idpIssuer}/.well-known/openid-configuration`) {
      return Effect.succeed(json(request, { issuer: idpIssuer, token_endpoint: `${idpIssuer}/oauth2/token` }))
    }
    if (path === `${idpIssuer}/oauth2/token`) {
      const form = new URLSearchParams(body)
      return Effect.succeed(json(
        request,
        options.exchange?.(form) ??
          { access_token: `jag-for-${form.get("audience")}`, issued_token_type: idJag, token_type: "N_A" }
      ))
    }
    if (path === `${issuer}/token`) {
      const answer = options.token?.(new URLSearchParams(body)) ??
        { status: 200, body: { access_token: `token-${++issued}`, token_type: "Bearer", expires_in: 3600 } }
      return Effect.succeed(json(request, answer.body, answer.status))
    }
    return Effect.succeed(json(request, { error: "not_found" }, 404))
  })
  return { seen, layer: Layer.succeed(HttpClient.HttpClient, client) }
}

const run = <A, E>(
  fake: ReturnType<typeof fakeGrants>,
  grant: NonNullable<OAuth.Options["grant"]>,
  use: (auth: OAuth.OAuthClient) => Effect.Effect<A, E>
) => Effect.flatMap(OAuth.make({ serverUrl, grant }), use).pipe(Effect.provide(fake.layer))

describe("OAuth grants without a browser", () => {
  it.effect("JWT bearer: a fresh assertion per token request, the resource, and no client authentication", () =>
    Effect.gen(function*() {
      const fake = fakeGrants()
      let minted = 0
      const assertion = Effect.sync(() => `workload-jwt-${++minted}`)
      const headers = yield* run(fake, { _tag: "JwtBearer", assertion }, (auth) =>
        Effect.gen(function*() {
          yield* auth.challenge(challenge401)
          // The resource refuses the token: the grant runs again with a new assertion.
          yield* auth.challenge(challenge401)
          return yield* auth.headers(serverUrl)
        }))
      assert.deepStrictEqual(headers, { Authorization: "Bearer token-2" })
      assert.deepStrictEqual(
        fake.seen.map((s) => [s.url, s.form.get("grant_type"), s.form.get("assertion"), s.form.get("resource")]),
        [
          [`${issuer}/token`, jwtBearer, "workload-jwt-1", serverUrl],
          [`${issuer}/token`, jwtBearer, "workload-jwt-2", serverUrl]
        ]
      )
      assert.isTrue(fake.seen.every((s) => s.authorization === undefined && !s.form.has("client_id")))
    }))

  it.effect("JWT bearer: a refused grant is reported once, with no other grant tried", () =>
    Effect.gen(function*() {
      const fake = fakeGrants({
        token: () => ({ status: 400, body: { error: "invalid_grant", error_description: "expired" } })
      })
      const result = yield* Effect.either(
        run(fake, { _tag: "JwtBearer", assertion: "expired-jwt", clientId: "workload" }, (auth) =>
          auth.challenge(challenge401))
      )
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError" && result.left.reason === "token")
      assert.deepStrictEqual(fake.seen.map((s) => [s.form.get("grant_type"), s.form.get("client_id")]), [
        [jwtBearer, "workload"]
      ])
    }))

  it.effect("enterprise: exchanges the ID token for an ID-JAG at the identity provider, then presents it", () =>
    Effect.gen(function*() {
      const fake = fakeGrants()
      const headers = yield* run(fake, {
        _tag: "EnterpriseManaged",
        identityAssertion: "user-id-token",
        identityProvider: { issuer: idpIssuer, clientId: "idp-client" },
        clientId: "mcp-client",
        clientSecret: "s3cret",
        scope: "chat.read"
      }, (auth) => Effect.zipRight(auth.challenge(challenge401), auth.headers(serverUrl)))
      assert.deepStrictEqual(headers, { Authorization: "Bearer token-1" })
      const [exchange, grant] = fake.seen
      assert.strictEqual(exchange!.url, `${idpIssuer}/oauth2/token`)
      assert.deepStrictEqual(Object.fromEntries(exchange!.form), {
        grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
        requested_token_type: idJag,
        audience: issuer,
        resource: serverUrl,
        subject_token: "user-id-token",
        subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
        scope: "chat.read",
        client_id: "idp-client"
      })
      assert.strictEqual(grant!.url, `${issuer}/token`)
      assert.strictEqual(grant!.form.get("grant_type"), jwtBearer)
      assert.strictEqual(grant!.form.get("assertion"), `jag-for-${issuer}`)
      assert.strictEqual(grant!.form.get("scope"), "chat.read")
      assert.strictEqual(grant!.authorization, `Basic ${btoa("mcp-client:s3cret")}`)
      assert.strictEqual(fake.seen.length, 2)
    }))

  it.effect("enterprise: an exchange that issues anything but an ID-JAG goes no further", () =>
    Effect.gen(function*() {
      const fake = fakeGrants({
        exchange: () => ({
          access_token: "a-token",
          issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
          token_type: "Bearer"
        })
      })
      const result = yield* Effect.either(run(fake, {
        _tag: "EnterpriseManaged",
        identityAssertion: "user-id-token",
        identityProvider: { issuer: idpIssuer, tokenEndpoint: `${idpIssuer}/oauth2/token`, clientId: "idp-client" },
        clientId: "mcp-client",
        clientSecret: "s3cret"
      }, (auth) => auth.challenge(challenge401)))
      assert.isTrue(
        Either.isLeft(result) && result.left._tag === "AuthError" && result.left.reason === "token-exchange"
      )
      assert.deepStrictEqual(fake.seen.map((s) => s.url), [`${idpIssuer}/oauth2/token`])
    }))

  it.effect("enterprise: credentials bound to another authorization server are not shown to this one", () =>
    Effect.gen(function*() {
      const fake = fakeGrants()
      const result = yield* Effect.either(run(fake, {
        _tag: "EnterpriseManaged",
        identityAssertion: "user-id-token",
        identityProvider: { issuer: idpIssuer, clientId: "idp-client" },
        clientId: "mcp-client",
        clientSecret: "s3cret",
        issuer: "https://other-auth.example.com"
      }, (auth) => auth.challenge(challenge401)))
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError" && result.left.reason === "policy")
      assert.deepStrictEqual(fake.seen, [])
    }))
})
