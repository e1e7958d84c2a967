/**
 * When tokens are refreshed: ahead of expiry by `refreshSkew`, once for every client sharing a
 * storage with locks (single flight), and never again once the authorization server refused the
 * refresh token (`invalid_grant`): it is removed and the next challenge asks the user.
 */
import { assert, describe, it } from "@effect/vitest"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { approve, challenge401, fakeAuthServer, goodCallback, serverUrl, tokenRequests } from "./utils/oauthFake.js"

const grantsOf = (fake: ReturnType<typeof fakeAuthServer>) =>
  tokenRequests(fake.seen).map((s) => new URLSearchParams(s.body).get("grant_type"))

/** Code grants get a token living `lifetime` seconds with a refresh token; refreshes get an hour. */
const refreshable = (lifetime: number) =>
  fakeAuthServer({
    token: (form) =>
      form.get("grant_type") === "refresh_token"
        ? { access_token: `refreshed-${form.get("refresh_token")}`, token_type: "Bearer", expires_in: 3600 }
        : { access_token: "first", token_type: "Bearer", expires_in: lifetime, refresh_token: "r1" }
  })

const authorized = (options: Omit<OAuth.Options, "serverUrl">) =>
  Effect.tap(
    OAuth.make({ serverUrl, authorize: approve(goodCallback), ...options }),
    (auth) => auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 })
  )

describe("OAuth refresh", () => {
  it.effect("refreshes a token refreshSkew before it expires, not earlier", () => {
    const fake = refreshable(600)
    return Effect.gen(function*() {
      const storage = yield* OAuth.makeMemoryStorage
      const auth = yield* authorized({ storage, refreshSkew: "5 minutes" })
      assert.deepStrictEqual(yield* auth.headers(serverUrl), { Authorization: "Bearer first" })
      yield* TestClock.adjust("4 minutes")
      assert.deepStrictEqual(yield* auth.headers(serverUrl), { Authorization: "Bearer first" })
      // 5 minutes left: inside the skew, though not expired.
      yield* TestClock.adjust("1 minute")
      assert.deepStrictEqual(yield* auth.headers(serverUrl), { Authorization: "Bearer refreshed-r1" })
      assert.deepStrictEqual(grantsOf(fake), ["authorization_code", "refresh_token"])
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("clients sharing a storage with locks refresh an expiring token once", () =>
    Effect.gen(function*() {
      const fake = refreshable(30)
      const storage = yield* OAuth.makeMemoryStorage
      yield* authorized({ storage }).pipe(Effect.provide(fake.layer))
      const clients = yield* Effect.all(
        Array.from({ length: 4 }, () => OAuth.make({ serverUrl, storage })),
        { concurrency: "unbounded" }
      ).pipe(Effect.provide(fake.layer))
      const headers = yield* Effect.all(clients.map((auth) => auth.headers(serverUrl)), { concurrency: "unbounded" })
      for (const h of headers) assert.deepStrictEqual(h, { Authorization: "Bearer refreshed-r1" })
      assert.deepStrictEqual(grantsOf(fake), ["authorization_code", "refresh_token"])
    }))

  it.effect("a refresh token refused with invalid_grant is removed, and the next challenge asks the user", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer({
        token: (form) =>
          form.get("grant_type") === "refresh_token"
            ? { error: "invalid_grant", error_description: "revoked" }
            : { access_token: "first", token_type: "Bearer", expires_in: 30, refresh_token: "r1" },
        tokenStatus: (form) => form.get("grant_type") === "refresh_token" ? 400 : 200
      })
      const storage = yield* OAuth.makeMemoryStorage
      let asked = 0
      const auth = yield* OAuth.make({
        serverUrl,
        storage,
        authorize: (url) => Effect.sync(() => asked++).pipe(Effect.zipRight(approve(goodCallback)(url)))
      }).pipe(Effect.provide(fake.layer))
      yield* auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }).pipe(
        Effect.provide(fake.layer)
      )
      assert.strictEqual(asked, 1)
      // Expired: the refresh is refused, the token removed, nothing sent.
      yield* TestClock.adjust("1 minute")
      assert.deepStrictEqual(yield* auth.headers(serverUrl), {})
      assert.isUndefined(yield* storage.get(OAuth.tokenKey(serverUrl)))
      // The server's challenge: the user is asked again; the refused refresh token is not tried again.
      yield* auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }).pipe(
        Effect.provide(fake.layer)
      )
      assert.strictEqual(asked, 2)
      assert.deepStrictEqual(grantsOf(fake), ["authorization_code", "refresh_token", "authorization_code"])
    }))

  it.effect("a refresh that fails for a while (the server down) keeps the refresh token for a later try", () =>
    Effect.gen(function*() {
      let down = true
      const fake = fakeAuthServer({
        token: (form) =>
          form.get("grant_type") === "refresh_token"
            ? down
              ? { error: "temporarily_unavailable" }
              : { access_token: "refreshed", token_type: "Bearer", expires_in: 3600 }
            : { access_token: "first", token_type: "Bearer", expires_in: 30, refresh_token: "r1" },
        tokenStatus: (form) => form.get("grant_type") === "refresh_token" && down ? 503 : 200
      })
      const storage = yield* OAuth.makeMemoryStorage
      yield* authorized({ storage }).pipe(Effect.provide(fake.layer))
      // A later run that cannot ask the user, while the authorization server is down.
      const headless = yield* OAuth.make({ serverUrl, storage }).pipe(Effect.provide(fake.layer))
      yield* TestClock.adjust("1 minute")
      assert.deepStrictEqual(yield* headless.headers(serverUrl), {})
      const refused = yield* Effect.flip(
        headless.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 })
      )
      assert.strictEqual(refused._tag, "AuthorizationRequiredError")
      // Back up: the kept refresh token works, no sign-in needed.
      down = false
      assert.deepStrictEqual(yield* headless.headers(serverUrl), { Authorization: "Bearer refreshed" })
    }))
})
