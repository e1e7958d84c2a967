import { assert, describe, it } from "@effect/vitest"
import * as NodeOAuthBrowser from "@mcp-effect/node/NodeOAuthBrowser"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"

describe("NodeOAuthBrowser", () => {
  it.scopedLive("hands the callback to the flow and answers with a page", () =>
    Effect.gen(function*() {
      const printed: Array<string> = []
      const browser = yield* NodeOAuthBrowser.make({
        port: 0,
        openBrowser: false,
        printUrl: (url) => printed.push(url)
      })
      assert.match(browser.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/)
      const fiber = yield* Effect.fork(browser.authorize(new URL("https://auth.example.com/authorize?state=s")))
      while (printed.length === 0) yield* Effect.sleep("10 millis")
      assert.deepStrictEqual(printed, ["https://auth.example.com/authorize?state=s"])
      const response = yield* Effect.promise(() => fetch(`${browser.redirectUri}?code=abc&state=s`))
      assert.strictEqual(response.status, 200)
      assert.include(yield* Effect.promise(() => response.text()), "Authorization received")
      const callback = yield* Fiber.join(fiber)
      assert.strictEqual(callback.href, `${browser.redirectUri}?code=abc&state=s`)
    }))

  it.scopedLive("fails after the timeout", () =>
    Effect.gen(function*() {
      const browser = yield* NodeOAuthBrowser.make({ openBrowser: false, printUrl: () => {}, timeout: "50 millis" })
      const result = yield* Effect.either(browser.authorize(new URL("https://auth.example.com/authorize")))
      assert.isTrue(Either.isLeft(result) && result.left._tag === "AuthError")
    }))
})
