/**
 * Output-schema validation in a Web Worker (`BrowserJsonSchema`, what `Browser.connect` uses):
 * a catastrophically backtracking `pattern` ends in the typed deadline error while the page stays
 * responsive, and an ordinary validation passes.
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
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { chromiumPath, corsGateway, ensureBuilt, ensureChromium, html, pageServer, root } from "./harness.js"

const scope = Effect.runSync(Scope.make())
const closers: Array<() => Promise<void>> = []
let browser: Browser
let page: Page
let mcpUrl: string

// `^(a+)+$` against 40 a's and a "!": hours of backtracking in one regular expression match.
const redos = FakeServer.tool(
  "redos",
  () => Effect.succeed({ content: [], structuredContent: { s: `${"a".repeat(40)}!` } }),
  { outputSchema: { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } } }
)

beforeAll(async () => {
  ensureBuilt()
  ensureChromium()
  const server = await FakeHttpServer.make({
    definition: { ...Scenarios.demo, era: "modern", tools: [...Scenarios.demo.tools ?? [], redos] }
  }).pipe(Scope.extend(scope), Effect.runPromise)
  const bundle = await esbuild.build({
    entryPoints: [Path.join(import.meta.dirname, "workerPage.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent"
  })
  // The page bundle inlines the client, so the worker is served beside the page's script.
  const worker = Fs.readFileSync(Path.join(root, "packages/client/browser/jsonSchemaWorker.js"), "utf8")
  const gateway = await corsGateway({ modern: server.url })
  const pages = await pageServer({
    "/": ["text/html", html("/page.js")],
    "/page.js": ["text/javascript", bundle.outputFiles[0]!.text],
    "/jsonSchemaWorker.js": ["text/javascript", worker]
  })
  closers.push(gateway.close, pages.close)
  mcpUrl = `${gateway.url}/modern/mcp`
  browser = await chromium.launch({ executablePath: chromiumPath })
  page = await browser.newPage()
  page.on("console", (message) => console.log(`[page] ${message.text()}`))
  await page.goto(pages.url)
  await page.waitForFunction(() => "mcpWorkerTest" in globalThis)
}, 300_000)

afterAll(async () => {
  await browser?.close()
  for (const close of closers) await close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

interface WorkerTest {
  call(url: string, tool: string): Promise<Record<string, unknown>>
  start(url: string, tool: string): void
  settle(): Promise<Record<string, unknown>>
}
/** Runs `body` with the page's test object (a function evaluated in the page, no closure). */
const inPage = <A>(body: (test: WorkerTest, url: string) => A) =>
  page.evaluate(
    ([source, url]) =>
      new Function("test", "url", `return (${source})(test, url)`)(
        (globalThis as unknown as { mcpWorkerTest: unknown }).mcpWorkerTest,
        url
      ),
    [body.toString(), mcpUrl]
  ) as Promise<Awaited<A>>

describe("JSON Schema validation in a Web Worker (Chromium)", () => {
  it("an output that matches its schema passes", async () => {
    const result = await inPage((test, url) => test.call(url, "add"))
    assert.deepStrictEqual(result, { structured: { sum: 42 } })
  })

  it("a catastrophic pattern fails with the typed deadline error, the page responsive meanwhile", async () => {
    await inPage((test, url) => test.start(url, "redos"))
    // The page's own thread answers while the validation runs (in-process, it would be stuck for
    // hours in the regular expression and this would never return).
    assert.strictEqual(
      await page.evaluate(() => (globalThis as unknown as { document: { title: string } }).document.title),
      "mcp-effect"
    )
    const result = await inPage((test) => test.settle())
    assert.strictEqual(result.validationError, true)
    assert.strictEqual(result.tag, "ValidationError")
    assert.include(result.message as string, "time budget of 1000 ms")
    // A fresh worker serves the next validation.
    const again = await inPage((test, url) => test.call(url, "add"))
    assert.deepStrictEqual(again, { structured: { sum: 42 } })
  })
})
