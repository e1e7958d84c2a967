/**
 * OAuth in headless Chromium (`BrowserOAuth`): the authorization code grant with PKCE against
 * the fake authorization server, through a full-page redirect and through a popup, the MCP server
 * on another origin requiring the token, tokens in `localStorage`.
 */
import * as FakeOAuthServer from "@mcp-effect/testing/FakeOAuthServer"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as esbuild from "esbuild"
import * as Path from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { chromiumPath, ensureBuilt, ensureChromium, html, pageServer } from "./harness.js"

const scope = Effect.runSync(Scope.make())
const closers: Array<() => Promise<void>> = []
const consoleLines: Array<string> = []
let browser: Browser
let page: Page
let fake: FakeOAuthServer.FakeOAuthServer
let pageUrl: string

type Result = Record<string, unknown> & { readonly error?: Record<string, unknown> }

beforeAll(async () => {
  ensureBuilt()
  ensureChromium()
  // Tokens outlive the tests: a second load uses the kept token as it is, without a refresh.
  fake = await FakeOAuthServer.makeWith({ cors: true, expiresIn: 3600 }).pipe(Scope.extend(scope), Effect.runPromise)
  const bundle = await esbuild.build({
    entryPoints: [Path.join(import.meta.dirname, "oauthPage.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent"
  })
  const pages = await pageServer({
    "/oauth.html": ["text/html", html("/oauth.js")],
    "/oauth.js": ["text/javascript", bundle.outputFiles[0]!.text],
    "/callback.html": ["text/html", "<!doctype html><html><head><title>signed in</title></head><body></body></html>"]
  })
  closers.push(pages.close)
  pageUrl = `${pages.url}/oauth.html`
  browser = await chromium.launch({ executablePath: chromiumPath })
  page = await browser.newPage()
  page.on("console", (message) => consoleLines.push(message.text()))
  await open()
}, 300_000)

afterAll(async () => {
  await browser?.close()
  for (const close of closers) await close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const open = async () => {
  await page.goto(pageUrl)
  await page.waitForFunction(() => "oauthTest" in globalThis)
}

interface PageApi {
  readonly call: (url: string, variant: string) => Promise<Result>
  readonly replay: (url: string, callback: string) => Promise<Result>
  readonly facade: (url: string) => Promise<Result>
  readonly storages: () => { session: Record<string, string>; local: Record<string, string> }
  readonly resumed?: Result
}

const call = (variant: "redirect" | "popup") =>
  page.evaluate(
    ([url, variant]) => (globalThis as unknown as { oauthTest: PageApi }).oauthTest.call(url!, variant!),
    [fake.mcpUrl, variant]
  )

const storages = () => page.evaluate(() => (globalThis as unknown as { oauthTest: PageApi }).oauthTest.storages())

const codeGrants = () => fake.grants.filter((grant) => grant.grant === "authorization_code").length

/** No secret that passed through the authorization server appears in `text`. */
const assertNoSecret = (text: string) => {
  for (const secret of fake.secrets) assert.notInclude(text, secret)
}

describe("Chromium: OAuth through a full-page redirect", () => {
  const callbacks: Array<string> = []

  it("goes to the authorization server, comes back, completes and calls the tool with the token", async () => {
    page.on("request", (request) => {
      if (request.isNavigationRequest() && new URL(request.url()).searchParams.has("code")) {
        callbacks.push(request.url())
      }
    })
    await page.evaluate((url) => {
      const g = globalThis as unknown as { oauthTest: PageApi; sessionStorage: { setItem(k: string, v: string): void } }
      g.sessionStorage.setItem("oauth-test/server", url)
      // The page leaves during this call: its promise never settles.
      void g.oauthTest.call(url, "redirect")
    }, fake.mcpUrl)
    // The page that came back finishes the flow by itself and calls again.
    await page.waitForFunction(() =>
      (globalThis as unknown as { oauthTest?: PageApi }).oauthTest?.resumed !== undefined
    )
    const resumed = await page.evaluate(() => (globalThis as unknown as { oauthTest: PageApi }).oauthTest.resumed!)
    assert.deepStrictEqual(resumed, { completed: true, sum: { sum: 42 }, search: "" })
    assert.strictEqual(callbacks.length, 1)
    assert.strictEqual(codeGrants(), 1)
    // The page's address bar no longer holds the code.
    assert.strictEqual(new URL(page.url()).search, "")
  })

  it("leaves no state or verifier in sessionStorage, and the token in localStorage", async () => {
    const { local, session } = await storages()
    assert.deepStrictEqual(Object.keys(session).filter((key) => key.includes("pending")), [])
    assertNoSecret(JSON.stringify(session))
    assert.isTrue(Object.keys(local).some((key) => key.startsWith("oauth-test/redirect/token:")))
  })

  it("refuses the callback replayed, typed, and redeems nothing", async () => {
    const replayed = await page.evaluate(
      ([url, callback]) => (globalThis as unknown as { oauthTest: PageApi }).oauthTest.replay(url!, callback!),
      [fake.mcpUrl, callbacks[0]!]
    )
    assert.strictEqual(replayed.error?.tag, "AuthError")
    assert.include(replayed.error?.message as string, "no authorization request is waiting")
    assertNoSecret(JSON.stringify(replayed))
    assert.strictEqual(codeGrants(), 1)
  })

  it("keeps the token in localStorage across a reload: the next load calls without authorizing again", async () => {
    await open()
    const result = await call("redirect")
    assert.deepStrictEqual(result, { completed: false, sum: { sum: 42 }, search: "" })
    assert.strictEqual(codeGrants(), 1)
    assert.strictEqual(page.url(), pageUrl)
  })

  it("logs no secret to the console", () => {
    assertNoSecret(consoleLines.join("\n"))
  })
})

describe("Chromium: OAuth through a popup", () => {
  it("opens the authorization server in a popup, reads the callback, closes it and calls the tool", async () => {
    await open()
    const popups: Array<Page> = []
    const watch = (popup: Page) => popups.push(popup)
    page.on("popup", watch)
    try {
      const result = await call("popup")
      assert.deepStrictEqual(result, { completed: false, sum: { sum: 42 }, search: "" })
      assert.strictEqual(codeGrants(), 2)
      assert.strictEqual(popups.length, 1)
      if (!popups[0]!.isClosed()) await popups[0]!.waitForEvent("close")
      // The page stayed: the waiting request lived in memory, nothing in sessionStorage.
      const { session } = await storages()
      assert.deepStrictEqual(Object.keys(session).filter((key) => key.includes("pending")), [])
    } finally {
      page.off("popup", watch)
    }
  })

  it("Browser.connect({ oauth }) authorizes through a popup, tokens in sessionStorage", async () => {
    await open()
    const result = await page.evaluate(
      (url) => (globalThis as unknown as { oauthTest: PageApi }).oauthTest.facade(url),
      fake.mcpUrl
    )
    assert.deepStrictEqual(result, { sum: { sum: 42 } })
    assert.strictEqual(codeGrants(), 3)
    const { session } = await storages()
    assert.isTrue(Object.keys(session).some((key) => key.startsWith("mcp-effect/oauth/token:")))
  })

  it("fails with AuthError reason popup-closed when the user closes the popup", async () => {
    await page.evaluate(() => (globalThis as unknown as { localStorage: { clear(): void } }).localStorage.clear())
    // The authorization page waits for the user, who closes it instead.
    const authorize = `${fake.issuer}/authorize**`
    await page.context().route(
      authorize,
      (route) => route.fulfill({ contentType: "text/html", body: "<title>sign in</title>" })
    )
    const closeIt = (popup: Page) => void popup.close()
    page.on("popup", closeIt)
    try {
      const result = await call("popup")
      assert.strictEqual(result.error?.tag, "AuthError")
      assert.strictEqual(result.error?.reason, "popup-closed")
    } finally {
      page.off("popup", closeIt)
      await page.context().unroute(authorize)
    }
  })

  it("fails with AuthError reason popup-blocked when the browser blocks the popup", async () => {
    await open()
    await page.evaluate(() => {
      const g = globalThis as unknown as { localStorage: { clear(): void }; open: () => null }
      g.localStorage.clear()
      g.open = () => null
    })
    const result = await call("popup")
    assert.strictEqual(result.error?.tag, "AuthError")
    assert.strictEqual(result.error?.reason, "popup-blocked")
    assert.include(result.error?.message as string, "blocked")
  })
})
