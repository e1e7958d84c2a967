import { assert, describe, it } from "@effect/vitest"
import * as BrowserOAuth from "@mcp-effect/client/BrowserOAuth"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as Effect from "effect/Effect"
import { challenge401, fakeAuthServer, goodCallback, issuer, run, serverUrl } from "./utils/oauthFake.js"

// What runs without a page; the flows themselves run in Chromium (test-browser/OAuth.test.ts).
describe("BrowserOAuth outside a page", () => {
  it.effect("completeRedirect passes over a URL that is no callback", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const completed = yield* run(fake, {}, (auth) =>
        BrowserOAuth.completeRedirect(auth, { url: "https://app.example.com/?state=only" }))
      assert.isFalse(completed)
    }))

  it.effect("completeRedirect completes the callback of a request kept in pendingStorage", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const pendingStorage = yield* OAuth.makeMemoryStorage
      const opened: Array<URL> = []
      const step = BrowserOAuth.redirect({
        redirectUri: "http://127.0.0.1:8976/callback",
        pendingStorage,
        navigate: (url) => opened.push(url)
      })
      yield* run(
        fake,
        step,
        (auth) =>
          Effect.fork(auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 })).pipe(
            Effect.zipLeft(Effect.repeat(Effect.yieldNow(), { until: () => opened.length > 0 }))
          )
      )
      const headers = yield* run(fake, step, (auth) =>
        Effect.zipRight(
          BrowserOAuth.completeRedirect(auth, { url: goodCallback(opened[0]!) }),
          auth.headers(serverUrl)
        ))
      assert.deepStrictEqual(headers, { Authorization: "Bearer token-1" })
    }))

  it.effect("completeRedirect refuses a callback where the user declined, typed, and spends the request", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const pendingStorage = yield* OAuth.makeMemoryStorage
      const opened: Array<URL> = []
      const step = BrowserOAuth.redirect({
        redirectUri: "http://127.0.0.1:8976/callback",
        pendingStorage,
        navigate: (url) => opened.push(url)
      })
      yield* run(
        fake,
        step,
        (auth) =>
          Effect.fork(auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 })).pipe(
            Effect.zipLeft(Effect.repeat(Effect.yieldNow(), { until: () => opened.length > 0 }))
          )
      )
      const state = opened[0]!.searchParams.get("state")!
      const refused = yield* Effect.flip(
        run(fake, step, (auth) =>
          BrowserOAuth.completeRedirect(auth, {
            url: `http://127.0.0.1:8976/callback?error=access_denied&state=${state}&iss=${encodeURIComponent(issuer)}`
          }))
      )
      assert.strictEqual(refused._tag, "AuthError")
      assert.include(refused.message, "access_denied")
      assert.isUndefined(yield* pendingStorage.get(OAuth.pendingKey(serverUrl)))
    }))

  it.effect("the popup step fails with AuthError reason popup-blocked where there is no window", () =>
    Effect.gen(function*() {
      const step = BrowserOAuth.popup({ redirectUri: "https://app.example.com/callback" })
      const error = yield* Effect.flip(step.authorize(new URL("https://auth.example.com/authorize?x=1")))
      assert.strictEqual(error._tag, "AuthError")
      assert.strictEqual((error as { reason?: string }).reason, "popup-blocked")
    }))
})
