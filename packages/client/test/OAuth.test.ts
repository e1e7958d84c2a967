import { assert, describe, it } from "@effect/vitest"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import {
  approve,
  challenge401,
  fakeAuthServer,
  goodCallback,
  issuer,
  prmUrl,
  run,
  serverUrl,
  tokenRequests
} from "./utils/oauthFake.js"

describe("OAuth", () => {
  it.effect("runs discovery, registration, PKCE and the token request, then sends the token", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const authorized: Array<URL> = []
      const headers = yield* run(fake, {
        authorize: (url) => {
          authorized.push(url)
          return approve(goodCallback)(url)
        }
      }, (auth) =>
        Effect.zipRight(
          auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }),
          auth.headers(serverUrl)
        ))
      assert.deepStrictEqual(headers, { Authorization: "Bearer token-1" })
      const url = authorized[0]!
      assert.strictEqual(url.searchParams.get("code_challenge_method"), "S256")
      assert.strictEqual(url.searchParams.get("resource"), serverUrl)
      assert.strictEqual(url.searchParams.get("client_id"), "dcr-client")
      const form = new URLSearchParams(tokenRequests(fake.seen)[0]!.body)
      assert.strictEqual(form.get("resource"), serverUrl)
      assert.isString(form.get("code_verifier"))
    }))

  it.effect("never sends the token to another origin", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const headers = yield* run(fake, { authorize: approve(goodCallback) }, (auth) =>
        Effect.zipRight(
          auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }),
          auth.headers("https://elsewhere.example.com/mcp")
        ))
      assert.deepStrictEqual(headers, {})
    }))

  it.effect("refuses authorization server metadata whose issuer differs", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer({ metadata: { issuer: "https://attacker.example.com" } })
      const result = yield* Effect.either(
        run(fake, { authorize: approve(goodCallback) }, (auth) =>
          auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }))
      )
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError")
      assert.deepStrictEqual(
        fake.seen.filter((s) =>
          s.method === "POST"
        ),
        []
      )
      assert.deepStrictEqual(tokenRequests(fake.seen), [])
    }))

  it.effect("refuses oversized metadata without buffering it", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer({ prm: { padding: "x".repeat(300 * 1024) } })
      const result = yield* Effect.either(
        run(fake, { authorize: approve(goodCallback) }, (auth) =>
          auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }))
      )
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError")
      assert.deepStrictEqual(
        fake.seen.map((s) =>
          s.url
        ),
        [prmUrl]
      )
    }))

  it.effect("refuses an authorization server without PKCE S256", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer({ metadata: { code_challenge_methods_supported: ["plain"] } })
      let authorized = false
      const result = yield* Effect.either(
        run(fake, {
          authorize: (url) => {
            authorized = true
            return approve(goodCallback)(url)
          }
        }, (auth) => auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }))
      )
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError")
      assert.isFalse(authorized)
    }))

  it.effect("refuses a resource_metadata URL on a private address (SSRF)", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const result = yield* Effect.either(
        run(fake, { authorize: approve(goodCallback) }, (auth) =>
          auth.challenge({
            url: serverUrl,
            status: 401,
            wwwAuthenticate: `Bearer resource_metadata="https://169.254.169.254/latest/meta-data"`
          }))
      )
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError")
      assert.deepStrictEqual(fake.seen, [])
    }))

  it.effect("refuses a callback that repeats a parameter, before redeeming the code", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const result = yield* Effect.either(
        run(fake, {
          authorize: approve((auth) => `${goodCallback(auth)}&code=other`)
        }, (auth) => auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }))
      )
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError")
      assert.deepStrictEqual(tokenRequests(fake.seen), [])
    }))

  it.effect("refuses a callback with a wrong iss, before redeeming the code", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const result = yield* Effect.either(
        run(fake, {
          authorize: approve((auth) =>
            `http://127.0.0.1:8976/callback?code=abc&state=${auth.searchParams.get("state")}&iss=${
              encodeURIComponent(`${issuer}/`)
            }`
          )
        }, (auth) => auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }))
      )
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError")
      assert.deepStrictEqual(tokenRequests(fake.seen), [])
    }))

  it.effect("refuses a DPoP token", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer({ token: () => ({ access_token: "t", token_type: "DPoP", expires_in: 60 }) })
      const result = yield* run(fake, { authorize: approve(goodCallback) }, (auth) =>
        Effect.zip(
          Effect.either(auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 })),
          auth.headers(serverUrl)
        ))
      assert.isTrue(Either.isLeft(result[0]) && result[0].left._tag === "AuthError")
      assert.deepStrictEqual(result[1], {})
    }))

  it.effect("refuses a non-Bearer token read back from storage", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const storage = yield* OAuth.makeMemoryStorage
      yield* storage.set(OAuth.tokenKey(serverUrl), { issuer, tokenType: "DPoP", accessToken: "t", scopes: [] })
      const headers = yield* run(fake, { storage }, (auth) => auth.headers(serverUrl))
      assert.deepStrictEqual(headers, {})
    }))

  it.effect("resumes a stored Bearer token", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const storage = yield* OAuth.makeMemoryStorage
      yield* storage.set(OAuth.tokenKey(serverUrl), { issuer, tokenType: "Bearer", accessToken: "kept", scopes: [] })
      const headers = yield* run(fake, { storage }, (auth) => auth.headers(serverUrl))
      assert.deepStrictEqual(headers, { Authorization: "Bearer kept" })
    }))

  it.effect("refreshes a refused token before asking the user again", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer({
        metadata: { client_id_metadata_document_supported: true }
      })
      const storage = yield* OAuth.makeMemoryStorage
      yield* storage.set(OAuth.tokenKey(serverUrl), {
        issuer,
        tokenType: "Bearer",
        accessToken: "old",
        refreshToken: "r0",
        scopes: []
      })
      let asked = false
      const headers = yield* run(fake, {
        storage,
        clientIdMetadataUrl: "https://app.example.com/client.json",
        authorize: (url) => {
          asked = true
          return approve(goodCallback)(url)
        }
      }, (auth) =>
        Effect.zipRight(
          auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }),
          auth.headers(serverUrl)
        ))
      assert.isFalse(asked)
      assert.strictEqual(new URLSearchParams(tokenRequests(fake.seen)[0]!.body).get("grant_type"), "refresh_token")
      assert.deepStrictEqual(headers, { Authorization: "Bearer token-1" })
    }))

  it.effect("refuses pre-registered credentials that name no issuer, sending nothing", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const result = yield* Effect.either(
        run(fake, {
          authorize: approve(goodCallback),
          preRegistered: { clientId: "c", clientSecret: "s", issuer: "" }
        }, (auth) => auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }))
      )
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError")
      assert.deepStrictEqual(fake.seen.filter((s) => s.method === "POST"), [])
    }))

  it.effect("uses pre-registered credentials of the issuer with client_secret_basic", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      yield* run(fake, {
        authorize: approve(goodCallback),
        preRegistered: [{ clientId: "other", issuer: "https://other.example.com" }, {
          clientId: "pre-registered-client",
          clientSecret: "s3cret",
          issuer
        }]
      }, (auth) => auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }))
      assert.deepStrictEqual(fake.seen.filter((s) => s.url === `${issuer}/register`), [])
      assert.strictEqual(
        tokenRequests(fake.seen)[0]!.authorization,
        `Basic ${btoa("pre-registered-client:s3cret")}`
      )
    }))

  it.effect("steps up with the union of scopes, a bounded number of times", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const forbidden = {
        url: serverUrl,
        status: 403 as const,
        wwwAuthenticate: `Bearer error="insufficient_scope", scope="mcp:write", resource_metadata="${prmUrl}"`
      }
      const authorized: Array<URL> = []
      const authorize = (url: URL) => {
        authorized.push(url)
        return approve(goodCallback)(url)
      }
      const outcome = yield* run(fake, { authorize, maxScopeAttempts: 2 }, (auth) =>
        Effect.gen(function*() {
          yield* auth.challenge({
            url: serverUrl,
            status: 401,
            wwwAuthenticate: `Bearer scope="mcp:basic", resource_metadata="${prmUrl}"`
          })
          yield* auth.challenge(forbidden)
          yield* auth.challenge(forbidden)
          return yield* Effect.either(auth.challenge(forbidden))
        }))
      const scopes = authorized.map((url) => url.searchParams.get("scope"))
      assert.deepStrictEqual(scopes, ["mcp:basic", "mcp:basic mcp:write", "mcp:basic mcp:write"])
      assert.isTrue(Either.isLeft(outcome) && outcome.left._tag === "InsufficientScopeError")
      if (Either.isLeft(outcome) && outcome.left._tag === "InsufficientScopeError") {
        assert.strictEqual(outcome.left.scope, "mcp:write")
      }
    }))

  it.effect("ignores a 403 that is not insufficient_scope", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const retry = yield* run(fake, {}, (auth) =>
        auth.challenge({ url: serverUrl, status: 403, wwwAuthenticate: `Bearer error="invalid_token"` }))
      assert.isFalse(retry)
      assert.deepStrictEqual(fake.seen, [])
    }))

  it.effect("fails with AuthorizationRequiredError carrying the URL when no interactive step exists", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const result = yield* Effect.either(
        run(fake, {}, (auth) => auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }))
      )
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthorizationRequiredError")
      if (Either.isLeft(result) && result.left._tag === "AuthorizationRequiredError") {
        assert.isTrue(result.left.authorizationUrl.startsWith(`${issuer}/authorize?`))
      }
    }))

  it.effect("completes a flow a non-interactive host finished out of band", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const headers = yield* run(fake, {}, (auth) =>
        Effect.gen(function*() {
          const refused = yield* Effect.flip(
            auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 })
          )
          assert.strictEqual(refused._tag, "AuthorizationRequiredError")
          const url = refused._tag === "AuthorizationRequiredError" ? new URL(refused.authorizationUrl) : undefined
          yield* auth.complete(new URL(goodCallback(url!)))
          // A second completion has nothing to complete.
          const again = yield* Effect.flip(auth.complete(new URL(goodCallback(url!))))
          assert.strictEqual(again._tag, "AuthError")
          return yield* auth.headers(serverUrl)
        }))
      assert.deepStrictEqual(headers, { Authorization: "Bearer token-1" })
      assert.strictEqual(tokenRequests(fake.seen).length, 1)
    }))

  it.effect("refreshes an expired token with the resource indicator", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer({
        token: (form) =>
          form.get("grant_type") === "refresh_token"
            ? { access_token: "refreshed", token_type: "Bearer", expires_in: 3600 }
            : { access_token: "short", token_type: "bearer", expires_in: 1, refresh_token: "r1" }
      })
      const headers = yield* run(fake, { authorize: approve(goodCallback) }, (auth) =>
        Effect.zipRight(
          auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }),
          auth.headers(serverUrl)
        ))
      assert.deepStrictEqual(headers, { Authorization: "Bearer refreshed" })
      const refresh = new URLSearchParams(tokenRequests(fake.seen)[1]!.body)
      assert.strictEqual(refresh.get("refresh_token"), "r1")
      assert.strictEqual(refresh.get("resource"), serverUrl)
    }))

  describe("a storage that cannot keep what a flow needs fails the flow up front", () => {
    const failing: OAuth.OAuthStorage = {
      get: () => Effect.succeed(undefined),
      set: () => Effect.fail(new OAuth.OAuthStorageError({ message: "read-only file system" })),
      remove: () => Effect.void
    }
    const forgetful: OAuth.OAuthStorage = {
      get: () => Effect.succeed(undefined),
      set: () => Effect.void,
      remove: () => Effect.void
    }
    for (const [name, storage] of [["failing writes", failing], ["dropping writes", forgetful]] as const) {
      it.effect(`${name}: no registration, no redirect, a typed AuthError`, () =>
        Effect.gen(function*() {
          const fake = fakeAuthServer()
          let authorized = false
          const result = yield* Effect.either(
            run(fake, {
              storage,
              authorize: (url) => {
                authorized = true
                return approve(goodCallback)(url)
              }
            }, (auth) => auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }))
          )
          assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError" && result.left.reason === "storage")
          assert.isFalse(authorized)
          assert.deepStrictEqual(fake.seen.filter((s) => s.method === "POST"), [])
        }))
    }

    it.effect("client credentials: no token request", () =>
      Effect.gen(function*() {
        const fake = fakeAuthServer()
        const result = yield* Effect.either(
          run(fake, {
            storage: failing,
            grant: { _tag: "ClientCredentials", clientId: "m2m", clientSecret: "s", issuer }
          }, (auth) => auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }))
        )
        assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError" && result.left.reason === "storage")
        assert.deepStrictEqual(tokenRequests(fake.seen), [])
      }))
  })
})
