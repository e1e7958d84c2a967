/**
 * The client in headless Chromium: the browser bundle over `fetch`, against fake servers of both
 * eras over Streamable HTTP, behind a CORS gateway on another origin than the page's.
 */
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as esbuild from "esbuild"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { build as viteBuild } from "vite"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { artifacts, chromiumPath, corsGateway, ensureBuilt, ensureChromium, html, pageServer } from "./harness.js"

const entry = Path.join(import.meta.dirname, "page.ts")
const scope = Effect.runSync(Scope.make())
const closers: Array<() => Promise<void>> = []
let browser: Browser
let page: Page
let urls: { legacy: string; modern: string; uncorsed: string; page: string }

/** A fake server whose `publish` tool sends `tools/list_changed` to the open listen streams. */
const fakeServer = (era: FakeServer.Definition["era"]) =>
  Effect.gen(function*() {
    let publish: Effect.Effect<void> = Effect.void
    const server = yield* FakeHttpServer.make({
      definition: {
        ...Scenarios.demo,
        era,
        subscriptions: true,
        tools: [
          ...Scenarios.demo.tools ?? [],
          FakeServer.tool("publish", () => Effect.as(Effect.suspend(() => publish), "published"))
        ]
      }
    })
    publish = server.fake.publish("notifications/tools/list_changed")
    return server
  }).pipe(Scope.extend(scope), Effect.runPromise)

const esbuildBundle = async () => {
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent"
  })
  return result.outputFiles[0]!.text
}

const viteBundle = async () => {
  const outDir = Path.join(artifacts, "vite")
  await viteBuild({
    configFile: false,
    logLevel: "warn",
    root: import.meta.dirname,
    build: {
      outDir,
      emptyOutDir: true,
      minify: true,
      lib: { entry, formats: ["es"], fileName: () => "page.js" }
    }
  })
  // The entry and the chunks it loads on first use.
  return Object.fromEntries(
    Fs.readdirSync(outDir, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".js"))
      .map((file) => [`/vite/${file}`, ["text/javascript", Fs.readFileSync(Path.join(outDir, file), "utf8")] as const])
  )
}

beforeAll(async () => {
  ensureBuilt()
  ensureChromium()
  Fs.mkdirSync(artifacts, { recursive: true })
  const [legacy, modern, esbuilt, vited] = await Promise.all([
    fakeServer("legacy"),
    fakeServer("modern"),
    esbuildBundle(),
    viteBundle()
  ])
  const gateway = await corsGateway({ legacy: legacy.url, modern: modern.url })
  const pages = await pageServer({
    "/": ["text/html", html("/esbuild.js")],
    "/vite.html": ["text/html", html("/vite/page.js")],
    "/esbuild.js": ["text/javascript", esbuilt],
    ...vited
  })
  closers.push(gateway.close, pages.close)
  urls = {
    legacy: `${gateway.url}/legacy/mcp`,
    modern: `${gateway.url}/modern/mcp`,
    uncorsed: modern.mcpUrl,
    page: pages.url
  }
  // `insecure.test` reaches the page server by a name that is not loopback's: a non-secure page.
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--host-resolver-rules=MAP insecure.test 127.0.0.1"]
  })
  page = await browser.newPage()
  page.on("console", (message) => console.log(`[page] ${message.text()}`))
  await open(urls.page)
}, 300_000)

afterAll(async () => {
  await browser?.close()
  for (const close of closers) await close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const open = async (url: string) => {
  await page.goto(url)
  await page.waitForFunction(() => "mcpTest" in globalThis)
}

const run = (name: string, url: string) =>
  page.evaluate(
    ([name, url]) =>
      (globalThis as unknown as { mcpTest: { run: (n: string, u: string) => Promise<unknown> } })
        .mcpTest.run(name!, url!),
    [name, url]
  ) as Promise<Record<string, unknown>>

describe("Chromium (esbuild bundle)", () => {
  it("connects to a 2025-11-25 server, lists tools, calls one and sees its progress notifications", async () => {
    const result = await run("basic", urls.legacy)
    assert.strictEqual(result.era, "2025-11-25")
    assert.includeMembers(result.tools as Array<string>, ["echo", "add", "progress", "publish"])
    assert.deepStrictEqual(result.sum, { sum: 42 })
    assert.deepStrictEqual(result.progress, [1, 2])
  })

  it("connects to a 2026-07-28 server, lists tools, calls one and sees its progress notifications", async () => {
    const result = await run("basic", urls.modern)
    assert.strictEqual(result.era, "2026-07-28")
    assert.deepStrictEqual(result.sum, { sum: 42 })
    assert.deepStrictEqual(result.progress, [1, 2])
  })

  it("a 2026-07-28 listen stream delivers the server's notification", async () => {
    assert.deepStrictEqual(await run("listen", urls.modern), { method: "notifications/tools/list_changed" })
  })

  it("8 subscriptions to one server share one listen stream: calls still answer", async () => {
    assert.deepStrictEqual(await run("manyListens", urls.modern), {
      active: 8,
      sum: { sum: 42 },
      method: "notifications/tools/list_changed"
    })
  })

  it("a 5th long-lived stream to one origin fails with ConnectionError stream-limit, calls still answer", async () => {
    const result = await run("streamLimit", urls.modern)
    assert.strictEqual(result.listening, 4)
    const [refused] = result.refused as Array<Record<string, string>>
    assert.strictEqual(refused!.tag, "ConnectionError")
    assert.strictEqual(refused!.reason, "stream-limit")
    assert.include(refused!.message, new URL(urls.modern).origin)
    assert.include(refused!.message, "maxStreamsPerOrigin: 4")
    assert.deepStrictEqual(result.sum, { sum: 42 })
  })

  it("a server on another origin without CORS headers fails with ConnectionError reason cors", async () => {
    const result = await run("failure", urls.uncorsed)
    assert.strictEqual(result.tag, "ConnectionError")
    assert.strictEqual(result.reason, "cors")
    assert.include(result.message as string, "likely CORS")
  })
})

describe("Chromium: the Promise facade (Browser.connect)", () => {
  it("connects to either era, lists tools and calls them with progress", async () => {
    for (const [url, era] of [[urls.legacy, "2025-11-25"], [urls.modern, "2026-07-28"]] as const) {
      const result = await run("facade", url)
      assert.strictEqual(result.era, era)
      assert.includeMembers(result.tools as Array<string>, ["echo", "add"])
      assert.deepStrictEqual(result.sum, { sum: 42 })
      assert.deepStrictEqual(result.progress, [1, 2])
    }
  })

  it("rejects with ConnectionError (reason cors) for a server without CORS headers", async () => {
    const result = await run("facadeFailure", urls.uncorsed)
    assert.include(result, { connectionError: true, reason: "cors" })
  })

  it("rejects a command line with ConfigError: a page starts no process", async () => {
    const result = await run("facadeFailure", "npx -y @modelcontextprotocol/server-everything")
    assert.include(result, { configError: true })
    assert.include(result.message as string, "cannot start a process")
  })
})

describe("Chromium (Vite bundle, no plugins)", () => {
  it("connects, lists tools and calls one on both eras", async () => {
    await open(`${urls.page}/vite.html`)
    for (const url of [urls.legacy, urls.modern]) {
      const result = await run("basic", url)
      assert.deepStrictEqual(result.sum, { sum: 42 })
    }
  })
})

describe("Chromium (a non-secure page: no crypto.randomUUID, no crypto.subtle)", () => {
  it("connects, lists tools and calls one whose result is validated against its output schema", async () => {
    await open(`${urls.page.replace("127.0.0.1", "insecure.test")}/`)
    const context = await page.evaluate(() => ({
      secure: (globalThis as unknown as { readonly isSecureContext: boolean }).isSecureContext,
      randomUUID: typeof globalThis.crypto.randomUUID,
      subtle: typeof globalThis.crypto.subtle
    }))
    assert.deepStrictEqual(context, { secure: false, randomUUID: "undefined", subtle: "undefined" })
    for (const url of [urls.legacy, urls.modern]) {
      const result = await run("basic", url)
      assert.deepStrictEqual(result.sum, { sum: 42 })
    }
  })
})
