import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src")

/** Every module a source module loads at run time (type-only imports are erased), transitively. */
const runtimeImports = (entry: string): Set<string> => {
  const found = new Set<string>()
  const visit = (file: string) => {
    const text = Fs.readFileSync(file, "utf8")
    for (const match of text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gms)) {
      const specifier = match[1]!
      if (!specifier.startsWith(".")) {
        found.add(specifier)
        continue
      }
      const resolved = path.resolve(path.dirname(file), specifier.replace(/\.js$/, ".ts"))
      if (!found.has(resolved)) {
        found.add(resolved)
        visit(resolved)
      }
    }
  }
  visit(path.join(src, entry))
  return found
}

const packagesOf = (imports: Set<string>) =>
  [...imports].filter((i) => !i.startsWith("/")).map((i) => i.split("/").slice(0, i.startsWith("@") ? 2 : 1).join("/"))

describe("entry modules", () => {
  it("the @effect/ai bridge never loads the AI SDK", () => {
    for (const entry of ["index.ts", "McpToolkit.ts", "McpToolError.ts"]) {
      const packages = new Set(packagesOf(runtimeImports(entry)))
      assert.isFalse(packages.has("ai"), `${entry} loads ai`)
    }
    assert.isTrue(new Set(packagesOf(runtimeImports("McpToolkit.ts"))).has("@effect/ai"))
  })

  it("the AI SDK tools never load @effect/ai", () => {
    const packages = new Set(packagesOf(runtimeImports("AiSdkTools.ts")))
    assert.isTrue(packages.has("ai"))
    assert.isFalse(packages.has("@effect/ai"))
  })
})
