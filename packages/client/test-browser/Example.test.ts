/**
 * The browser example (`examples/browser/`, `npm run example:browser`) in headless Chromium:
 * connect, pick a tool, fill the form rendered from its input schema, call it, and read the
 * result and the notifications from the page. A screenshot is kept in `.browser-artifacts/`.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { type Browser, chromium } from "playwright-core"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { serve } from "../../../examples/browser-serve.js"
import { artifacts, chromiumPath, ensureBuilt, ensureChromium } from "./harness.js"

const scope = Effect.runSync(Scope.make())
let browser: Browser
let url: string

beforeAll(async () => {
  ensureBuilt()
  ensureChromium()
  url = (await Effect.runPromise(Scope.extend(serve(0), scope))).url
  browser = await chromium.launch({ executablePath: chromiumPath })
}, 300_000)

afterAll(async () => {
  await browser?.close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

describe("examples/browser", () => {
  it("connects, renders a tool's form, calls it and shows the result and the notifications", async () => {
    const page = await browser.newPage()
    await page.goto(url)
    await page.click("#connect button")
    await page.waitForSelector("#status:has-text('connected to')")
    assert.include(await page.textContent("#status"), "mcp-effect-demo")

    await page.selectOption("#tool", "add")
    await page.fill("input[name=a]", "2")
    await page.fill("input[name=b]", "40")
    await page.click("#call button")
    await page.waitForSelector("#result:has-text('sum')")
    assert.deepStrictEqual(JSON.parse((await page.textContent("#result"))!), { sum: 42 })

    await page.selectOption("#tool", "progress")
    await page.fill("input[name=steps]", "2")
    await page.click("#call button")
    await page.waitForSelector("#result:has-text('done after 2 steps')")
    const notes = await page.locator("#notifications li").allTextContents()
    assert.includeMembers(notes.map((note) => note.split(" ").slice(0, 2).join(" ")), ["progress 1/2", "progress 2/2"])

    Fs.mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: Path.join(artifacts, "example-browser.png"), fullPage: true })
  })
})
