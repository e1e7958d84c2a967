import { assert, describe, it } from "@effect/vitest"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as Effect from "effect/Effect"
import { challenge401, fakeAuthServer, goodCallback, run, serverUrl, tokenRequests } from "./utils/oauthFake.js"

/** A flow whose step leaves (a page navigating away): the URL it was given, and a never-ending wait. */
const leaving = () => {
  const opened: Array<URL> = []
  const authorize = (url: URL) => Effect.zipRight(Effect.sync(() => opened.push(url)), Effect.never)
  return { opened, authorize }
}

describe("OAuth: the waiting request in pendingStorage (a page that navigates away)", () => {
  it.effect("is kept before the step runs, and another client (the page come back) completes it once", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const pendingStorage = yield* OAuth.makeMemoryStorage
      const step = leaving()
      // The first page: the step navigates away and never returns.
      yield* run(
        fake,
        { pendingStorage, authorize: step.authorize },
        (auth) =>
          Effect.fork(auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 })).pipe(
            Effect.zipLeft(Effect.repeat(Effect.yieldNow(), { until: () => step.opened.length > 0 })),
            Effect.flatMap((fiber) => fiber.interruptAsFork(fiber.id()))
          )
      )
      const url = step.opened[0]!
      const kept = (yield* pendingStorage.get(OAuth.pendingKey(serverUrl))) as { request: { state: string } }
      assert.strictEqual(kept.request.state, url.searchParams.get("state"))
      // The page come back: a new client over the same storage.
      const messages: Array<string> = []
      const headers = yield* run(fake, { pendingStorage }, (auth) =>
        Effect.gen(function*() {
          // A callback with another state is refused and spends nothing.
          const stray = yield* Effect.flip(auth.complete(new URL(`http://127.0.0.1:8976/callback?code=x&state=forged`)))
          assert.strictEqual(stray._tag, "AuthError")
          assert.include(stray.message, "matches no waiting authorization request")
          messages.push(stray.message)
          yield* auth.complete(new URL(goodCallback(url)))
          // Replayed: the request was taken by the first completion.
          const replayed = yield* Effect.flip(auth.complete(new URL(goodCallback(url))))
          assert.strictEqual(replayed._tag, "AuthError")
          assert.include(replayed.message, "no authorization request is waiting")
          messages.push(replayed.message)
          return yield* auth.headers(serverUrl)
        }))
      assert.deepStrictEqual(headers, { Authorization: "Bearer token-1" })
      assert.strictEqual(tokenRequests(fake.seen).length, 1)
      assert.isUndefined(yield* pendingStorage.get(OAuth.pendingKey(serverUrl)))
      // The refusals name no secret of the request.
      const form = new URLSearchParams(tokenRequests(fake.seen)[0]!.body)
      for (const secret of [form.get("code_verifier")!, form.get("code")!]) {
        for (const message of messages) assert.notInclude(message, secret)
      }
    }))

  it.effect("a step that returns the callback (a popup) leaves nothing kept", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const pendingStorage = yield* OAuth.makeMemoryStorage
      const headers = yield* run(fake, {
        pendingStorage,
        authorize: (url) => Effect.succeed(new URL(goodCallback(url)))
      }, (auth) =>
        Effect.zipRight(
          auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 }),
          auth.headers(serverUrl)
        ))
      assert.deepStrictEqual(headers, { Authorization: "Bearer token-1" })
      assert.isUndefined(yield* pendingStorage.get(OAuth.pendingKey(serverUrl)))
    }))

  it.effect("a step that fails (a closed popup) leaves nothing kept", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const pendingStorage = yield* OAuth.makeMemoryStorage
      const result = yield* Effect.flip(run(fake, {
        pendingStorage,
        authorize: (url) => Effect.fail(new OAuth.OAuthStorageError({ message: url.origin })) as never
      }, (auth) => auth.challenge({ url: serverUrl, status: 401, wwwAuthenticate: challenge401 })))
      assert.isDefined(result)
      assert.isUndefined(yield* pendingStorage.get(OAuth.pendingKey(serverUrl)))
    }))

  it.effect("an unreadable kept request is dropped and refused", () =>
    Effect.gen(function*() {
      const fake = fakeAuthServer()
      const pendingStorage = yield* OAuth.makeMemoryStorage
      yield* pendingStorage.set(OAuth.pendingKey(serverUrl), { request: "garbage" })
      const refused = yield* Effect.flip(
        run(fake, { pendingStorage }, (auth) => auth.complete(new URL("http://127.0.0.1:8976/callback?code=a&state=b")))
      )
      assert.include(refused.message, "could not be read")
      assert.isUndefined(yield* pendingStorage.get(OAuth.pendingKey(serverUrl)))
    }))
})
