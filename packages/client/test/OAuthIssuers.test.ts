/**
 * One token per authorization server: a resource that moves to another authorization server and
 * back resumes the first one's token and registration; a retired token is deleted everywhere;
 * no token or registration is ever shown to an authorization server that did not issue it.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { bodyText, json } from "./utils/fakeHttp.js"

const serverUrl = "https://mcp.example.com/mcp"
const prmUrl = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
const as1 = "https://as1.example.com"
const as2 = "https://as2.example.com"
const refusedByResource = {
  url: serverUrl,
  status: 401 as const,
  wwwAuthenticate: `Bearer resource_metadata="${prmUrl}"`
}

interface Seen {
  readonly host: string
  readonly path: string
  readonly body: string
  readonly authorization: string | undefined
}

/** A resource whose authorization server can be switched, and two authorization servers. */
const fakeResource = () => {
  const seen: Array<Seen> = []
  const issued = new Map<string, number>()
  let current = as1
  const client = HttpClient.make((request, url) => {
    const body = bodyText(request)
    seen.push({ host: url.origin, path: url.pathname, body, authorization: request.headers["authorization"] })
    if (url.href === prmUrl) {
      return Effect.succeed(json(request, { resource: serverUrl, authorization_servers: [current] }))
    }
    const issuer = url.origin
    const name = new URL(issuer).hostname.split(".")[0]!
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return Effect.succeed(json(request, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        code_challenge_methods_supported: ["S256"],
        authorization_response_iss_parameter_supported: true
      }))
    }
    if (url.pathname === "/register") {
      return Effect.succeed(json(request, { client_id: `${name}-client`, client_secret: `${name}-secret` }, 201))
    }
    if (url.pathname === "/token") {
      const n = (issued.get(issuer) ?? 0) + 1
      issued.set(issuer, n)
      return Effect.succeed(json(request, {
        access_token: `${name}-token-${n}`,
        refresh_token: `${name}-refresh-${n}`,
        token_type: "Bearer",
        expires_in: 3600
      }))
    }
    return Effect.succeed(json(request, { error: "not_found" }, 404))
  })
  return {
    seen,
    switchTo: (issuer: string) => {
      current = issuer
    },
    layer: Layer.succeed(HttpClient.HttpClient, client)
  }
}

/** Approves at once, answering with the `iss` of the authorization server asked. */
const approving = (asked: Array<string>) => (url: URL) => {
  asked.push(url.origin)
  return Effect.succeed(
    new URL(
      `http://127.0.0.1:8976/callback?code=c&state=${url.searchParams.get("state")}&iss=${
        encodeURIComponent(url.origin)
      }`
    )
  )
}

/** Everything an authorization server must never see from the other one. */
const secretsOf = (name: string) => [`${name}-token-`, `${name}-refresh-`, `${name}-client`, `${name}-secret`]

const leaks = (seen: ReadonlyArray<Seen>) =>
  seen.filter((s) => {
    const other = s.host === as1 ? "as2" : s.host === as2 ? "as1" : undefined
    if (other === undefined) return false
    const text = `${s.body} ${s.authorization === undefined ? "" : atob(s.authorization.replace(/^Basic /, ""))}`
    return secretsOf(other).some((secret) => text.includes(secret))
  })

describe("OAuth: one token per authorization server", () => {
  it.effect("resumes the first server's token and registration when the resource switches back to it", () =>
    Effect.gen(function*() {
      const fake = fakeResource()
      const storage = yield* OAuth.makeMemoryStorage
      const asked: Array<string> = []
      const sent = yield* Effect.gen(function*() {
        const auth = yield* OAuth.make({ serverUrl, storage, authorize: approving(asked) })
        const sent: Array<Record<string, string>> = []
        yield* auth.challenge(refusedByResource)
        sent.push(yield* auth.headers(serverUrl))
        fake.switchTo(as2)
        yield* auth.challenge(refusedByResource)
        sent.push(yield* auth.headers(serverUrl))
        fake.switchTo(as1)
        assert.isTrue(yield* auth.challenge(refusedByResource))
        sent.push(yield* auth.headers(serverUrl))
        return sent
      }).pipe(Effect.provide(fake.layer))
      assert.deepStrictEqual(sent.map((h) => h.Authorization), [
        "Bearer as1-token-1",
        "Bearer as2-token-1",
        "Bearer as1-token-1"
      ])
      // The user was asked once per authorization server; the first one registered and issued once.
      assert.deepStrictEqual(asked, [as1, as2])
      assert.deepStrictEqual(fake.seen.filter((s) => s.path === "/register").map((s) => s.host), [as1, as2])
      assert.deepStrictEqual(fake.seen.filter((s) => s.path === "/token").map((s) => s.host), [as1, as2])
      // Each token is kept under its issuer.
      const kept = (issuer: string) =>
        Effect.map(storage.get(OAuth.tokenKey(serverUrl, issuer)), (t) => (t as { accessToken: string }).accessToken)
      assert.strictEqual(yield* kept(as1), "as1-token-1")
      assert.strictEqual(yield* kept(as2), "as2-token-1")
      assert.deepStrictEqual(leaks(fake.seen), [])
    }))

  it.effect("refreshes a resumed token only with the server that issued it", () =>
    Effect.gen(function*() {
      const fake = fakeResource()
      const storage = yield* OAuth.makeMemoryStorage
      const asked: Array<string> = []
      yield* Effect.gen(function*() {
        const auth = yield* OAuth.make({ serverUrl, storage, authorize: approving(asked) })
        yield* auth.challenge(refusedByResource)
        fake.switchTo(as2)
        yield* auth.challenge(refusedByResource)
        fake.switchTo(as1)
        yield* auth.challenge(refusedByResource)
        // The resumed token is refused too: it is refreshed with its own server and registration.
        yield* auth.challenge(refusedByResource)
        assert.deepStrictEqual(yield* auth.headers(serverUrl), { Authorization: "Bearer as1-token-2" })
      }).pipe(Effect.provide(fake.layer))
      assert.deepStrictEqual(asked, [as1, as2])
      const refresh = fake.seen.filter((s) => s.path === "/token").at(-1)!
      assert.strictEqual(refresh.host, as1)
      assert.strictEqual(new URLSearchParams(refresh.body).get("refresh_token"), "as1-refresh-1")
      assert.strictEqual(refresh.authorization, `Basic ${btoa("as1-client:as1-secret")}`)
      assert.deepStrictEqual(leaks(fake.seen), [])
    }))

  it.effect("deletes a refused token that cannot be renewed everywhere it is kept", () =>
    Effect.gen(function*() {
      const fake = fakeResource()
      const storage = yield* OAuth.makeMemoryStorage
      const refused = { issuer: as1, tokenType: "Bearer", accessToken: "as1-token-old", scopes: [] }
      const other = { issuer: as2, tokenType: "Bearer", accessToken: "as2-token-kept", scopes: [] }
      yield* storage.set(OAuth.tokenKey(serverUrl), refused)
      yield* storage.set(OAuth.tokenKey(serverUrl, as1), refused)
      yield* storage.set(OAuth.tokenKey(serverUrl, as2), other)
      // No interactive step: the flow ends with AuthorizationRequiredError, so no new token comes.
      const result = yield* Effect.either(
        Effect.flatMap(OAuth.make({ serverUrl, storage }), (auth) => auth.challenge(refusedByResource)).pipe(
          Effect.provide(fake.layer)
        )
      )
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthorizationRequiredError")
      assert.isUndefined(yield* storage.get(OAuth.tokenKey(serverUrl)))
      assert.isUndefined(yield* storage.get(OAuth.tokenKey(serverUrl, as1)))
      assert.deepStrictEqual(yield* storage.get(OAuth.tokenKey(serverUrl, as2)), other)
    }))

  it.effect("deletes an expired token that cannot be refreshed everywhere it is kept", () =>
    Effect.gen(function*() {
      const fake = fakeResource()
      const storage = yield* OAuth.makeMemoryStorage
      const expired = { issuer: as1, tokenType: "Bearer", accessToken: "as1-token-old", expiresAt: 0, scopes: [] }
      yield* storage.set(OAuth.tokenKey(serverUrl), expired)
      yield* storage.set(OAuth.tokenKey(serverUrl, as1), expired)
      const headers = yield* Effect.flatMap(OAuth.make({ serverUrl, storage }), (auth) => auth.headers(serverUrl)).pipe(
        Effect.provide(fake.layer)
      )
      assert.deepStrictEqual(headers, {})
      assert.isUndefined(yield* storage.get(OAuth.tokenKey(serverUrl)))
      assert.isUndefined(yield* storage.get(OAuth.tokenKey(serverUrl, as1)))
      assert.deepStrictEqual(fake.seen, [])
    }))
})
