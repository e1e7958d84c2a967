import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const root = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const client = Path.join(root, "packages", "client", "src")

const MAX_LINES = 200

/** Functions allowed past the bound, by file, and why. */
const allowed: Record<string, string> = {
  // One closure over documented state groups: `push` runs per chunk on every HTTP transport's hot path.
  "internal/wire/sse.ts": "the SSE parser"
}

/** Every function (declaration, expression, arrow, method) longer than `max` lines, as "file:line (n lines)". */
const longFunctions = (dir: string, max: number): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const entry of Fs.readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    if (!entry.endsWith(".ts")) continue
    const relative = entry.split(Path.sep).join("/")
    if (allowed[relative] !== undefined) continue
    const file = Path.join(dir, entry)
    const source = ts.createSourceFile(file, Fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line
        const last = source.getLineAndCharacterOfPosition(node.end).line
        if (last - first + 1 > max) found.push(`${relative}:${first + 1} (${last - first + 1} lines)`)
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return found
}

describe("function length", () => {
  it(`no function in packages/client/src is over ${MAX_LINES} lines`, () => {
    assert.deepStrictEqual(longFunctions(client, MAX_LINES), [])
  })

  it("the measure finds a long function", () => {
    assert.isAbove(longFunctions(client, 100).length, 0)
  })
})
