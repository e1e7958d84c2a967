import { assert, describe, it } from "@effect/vitest"
import * as McpError from "@mcp-effect/client/McpError"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

// docs/troubleshooting.md has a cause → fix row per error class McpError exports.
const doc = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../docs/troubleshooting.md")

describe("docs/troubleshooting.md", () => {
  it("has a row for every error class of McpError", () => {
    const exported = Object.entries(McpError)
      .filter(([name, value]) => typeof value === "function" && /^[A-Z]\w*Error$/.test(name))
      .map(([name]) => name)
      .sort()
    const rows = [...Fs.readFileSync(doc, "utf8").matchAll(/^\| `([A-Z]\w*Error)` \|/gm)].map((match) => match[1]!)
    assert.isAbove(exported.length, 20)
    assert.deepStrictEqual([...rows].sort(), exported)
  })
})
