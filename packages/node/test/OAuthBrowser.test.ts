import { assert, describe, it } from "@effect/vitest"
import * as NodeOAuthBrowser from "@mcp-effect/node/NodeOAuthBrowser"
import type * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"

const get = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, text: await response.text(), headers: response.headers }
  })

/** Waits (on the live clock) until `ready()` holds. */
const until = (ready: () => boolean) =>
  Effect.gen(function*() {
    while (!ready()) yield* Effect.sleep("10 millis")
  })

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

  it.scopedLive("answers a refused authorization with a failure page and hands the callback to the flow", () =>
    Effect.gen(function*() {
      const printed: Array<string> = []
      const browser = yield* NodeOAuthBrowser.make({ openBrowser: false, printUrl: (url) => printed.push(url) })
      const fiber = yield* Effect.fork(browser.authorize(new URL("https://auth.example.com/authorize")))
      yield* until(() => printed.length > 0)
      const answer = yield* get(`${browser.redirectUri}?error=access_denied&state=s`)
      assert.strictEqual(answer.status, 400)
      assert.include(answer.text, "Authorization failed")
      assert.notInclude(answer.text, "access_denied")
      assert.strictEqual(answer.headers.get("referrer-policy"), "no-referrer")
      const callback = yield* Fiber.join(fiber)
      assert.strictEqual(callback.searchParams.get("error"), "access_denied")
    }))

  it.scopedLive("answers callbacks nobody waits for, and other paths, without handing anything on", () =>
    Effect.gen(function*() {
      const browser = yield* NodeOAuthBrowser.make({ openBrowser: false, printUrl: () => {} })
      const stray = yield* get(`${browser.redirectUri}?code=abc&state=s`)
      assert.strictEqual(stray.status, 400)
      assert.include(stray.text, "No authorization in progress")
      const other = yield* get(browser.redirectUri.replace("/callback", "/favicon.ico"))
      assert.strictEqual(other.status, 404)
    }))

  it.scopedLive("prints the URL on the Console and opens the browser with it", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const opened: Array<string> = []
      const base = yield* Effect.console
      const console: Console.Console = {
        ...base,
        error: (...args) => Effect.sync(() => void lines.push(args.join(" ")))
      }
      const browser = yield* NodeOAuthBrowser.make({ openBrowser: (url) => opened.push(url) })
      const fiber = yield* Effect.fork(
        Effect.withConsole(browser.authorize(new URL("https://auth.example.com/authorize?state=s")), console)
      )
      yield* until(() => opened.length > 0)
      assert.deepStrictEqual(lines, ["Open this URL to authorize: https://auth.example.com/authorize?state=s"])
      assert.deepStrictEqual(opened, ["https://auth.example.com/authorize?state=s"])
      yield* get(`${browser.redirectUri}?code=abc&state=s`)
      yield* Fiber.join(fiber)
    }))

  it.scopedLive("listens where the redirect URI points, port 0 picking a free port", () =>
    Effect.gen(function*() {
      const browser = yield* NodeOAuthBrowser.make({ redirectUri: "http://127.0.0.1:0/oauth/back", printUrl: () => {} })
      const match = /^http:\/\/127\.0\.0\.1:(\d+)\/oauth\/back$/.exec(browser.redirectUri)
      assert.isNotNull(match)
      assert.notStrictEqual(match![1], "0")
      const refused = yield* Effect.either(
        NodeOAuthBrowser.make({ redirectUri: "https://app.example.com/callback", printUrl: () => {} })
      )
      assert.isTrue(Either.isLeft(refused) && refused.left._tag === "AuthError")
    }))

  it.scopedLive("stops listening when its scope closes", () =>
    Effect.gen(function*() {
      const redirectUri = yield* Effect.scoped(
        Effect.map(NodeOAuthBrowser.make({ openBrowser: false, printUrl: () => {} }), (browser) => browser.redirectUri)
      )
      const after = yield* Effect.either(Effect.tryPromise(() => fetch(`${redirectUri}?code=abc&state=s`)))
      assert.isTrue(Either.isLeft(after))
    }))

  it.live("start/close for Promise code", () =>
    Effect.gen(function*() {
      const browser = yield* Effect.promise(() => NodeOAuthBrowser.start({ openBrowser: false, printUrl: () => {} }))
      assert.strictEqual((yield* get(browser.redirectUri)).status, 400)
      yield* Effect.promise(() => browser.close())
      assert.isTrue(Either.isLeft(yield* Effect.either(Effect.tryPromise(() => fetch(browser.redirectUri)))))
    }))
})
