import { assert, describe, it } from "@effect/vitest"
import * as McpError from "@mcp-effect/client/McpError"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

// docs/errors.md has one row per error class McpError exports: adding an error means documenting it.
const doc = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../../docs/errors.md")

describe("docs/errors.md", () => {
  it("lists exactly the error classes of McpError", () => {
    const exported = Object.entries(McpError)
      .filter(([name, value]) => typeof value === "function" && /^[A-Z]\w*Error$/.test(name))
      .map(([name]) => name)
      .sort()
    const documented = [...Fs.readFileSync(doc, "utf8").matchAll(/^\| `([A-Z]\w*Error)` \|/gm)]
      .map((match) => match[1]!)
      .sort()
    assert.isAbove(exported.length, 20)
    assert.deepStrictEqual(documented, exported)
  })

  it("lists each error group with exactly its tags", () => {
    const text = Fs.readFileSync(doc, "utf8")
    for (const [group, tags] of Object.entries(McpError.groups)) {
      const row = text.match(new RegExp(`^\\| ${group} \\|(.*)\\|\\s*$`, "m"))
      assert.isNotNull(row, `docs/errors.md has no row for the ${group} group`)
      const cells = row![1]!.split("|")
      const listed = [...cells[cells.length - 1]!.matchAll(/`(\w+Error)`/g)].map((match) => match[1]!).sort()
      assert.deepStrictEqual(listed, [...tags].sort(), group)
    }
  })
})
