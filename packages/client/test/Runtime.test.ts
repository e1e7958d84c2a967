import { assert, describe, it } from "@effect/vitest"
import * as Host from "../src/internal/host.js"

// `npm test` runs the suites on Node, Bun and Deno, and names the runtime each step means in
// MCP_EFFECT_RUNTIME: a step that silently ran on Node instead fails here.
const expected = process.env.MCP_EFFECT_RUNTIME ?? "node"

describe("the runtime", () => {
  it(`is ${expected}`, () => {
    const globals = globalThis as { readonly Bun?: unknown; readonly Deno?: unknown }
    assert.strictEqual(typeof globals.Bun !== "undefined", expected === "bun")
    assert.strictEqual(typeof globals.Deno !== "undefined", expected === "deno")
    assert.strictEqual(Host.runtime(), expected)
  })

  it("lends Node's built-in modules to the core", () => {
    assert.strictEqual(typeof Host.builtinModule<{ createGunzip: unknown }>("node:zlib")?.createGunzip, "function")
    assert.strictEqual(Host.platform(), process.platform)
  })
})
