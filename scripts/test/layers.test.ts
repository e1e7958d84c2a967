import { assert, describe, it } from "@effect/vitest"
import { ESLint } from "eslint"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const internal = Path.join(root, "packages", "client", "src", "internal")

/** Lints a source as if it lived at `file` (nothing is written), with the repository's config. */
const lint = async (file: string, source: string): Promise<ReadonlyArray<string>> => {
  const [result] = await new ESLint({ cwd: root }).lintText(source, { filePath: Path.join(root, file) })
  return result.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message)
}

describe("layers only look down", () => {
  it("lint refuses an import of a layer above, and accepts one below", { timeout: 60_000 }, async () => {
    const probe = (from: string) => `import * as X from "${from}"\nexport const x = X\n`
    const refused = await Promise.all([
      lint("packages/client/src/internal/rpc/probe.ts", probe("../connection/core.js")),
      lint("packages/client/src/internal/http/probe.ts", probe("../connection/logMessage.js")),
      lint("packages/client/src/internal/wire/probe.ts", probe("../connection/resultCache.js")),
      lint("packages/client/src/internal/wire/probe.ts", probe("../http/http.js")),
      lint("packages/client/src/Protocol.ts", probe("./internal/connection/resultCache.js")),
      lint("packages/client/src/internal/escape.ts", probe("./connection/core.js"))
    ])
    for (const messages of refused) {
      assert.strictEqual(messages.length, 1)
      assert.include(messages[0], "layers only look down")
    }
    const accepted = await Promise.all([
      lint("packages/client/src/internal/rpc/probe.ts", probe("../escape.js")),
      lint("packages/client/src/internal/http/probe.ts", probe("../wire/sse.js")),
      lint("packages/client/src/internal/connection/probe.ts", probe("../cacheHints.js"))
    ])
    for (const messages of accepted) assert.deepStrictEqual(messages, [])
  })

  it("the internal folders' import graph has no cycle (value or type imports)", () => {
    const graph = internalGraph()
    assert.isAbove(graph.size, 5)
    assert.deepStrictEqual(cycleOf(graph), undefined)
  })

  it("the cycle finder finds a cycle", () => {
    const graph = new Map([["a", new Set(["b"])], ["b", new Set(["c"])], ["c", new Set(["a"])], ["d", new Set(["a"])]])
    assert.deepStrictEqual(cycleOf(graph), ["a", "b", "c", "a"])
  })
})

/**
 * The internal folders (and the shared leaves at the top of `internal/`) with the folders each
 * imports from, type-only imports included.
 */
const internalGraph = (): Map<string, Set<string>> => {
  const nodeOf = (file: string): string | undefined => {
    const relative = Path.relative(internal, file)
    return relative.startsWith("..") ? undefined : relative.split(Path.sep)[0]
  }
  const graph = new Map<string, Set<string>>()
  for (const entry of Fs.readdirSync(internal, { recursive: true, encoding: "utf8" })) {
    if (!entry.endsWith(".ts")) continue
    const file = Path.join(internal, entry)
    const from = nodeOf(file)!
    const edges = graph.get(from) ?? new Set<string>()
    graph.set(from, edges)
    const source = Fs.readFileSync(file, "utf8")
    for (const [, specifier] of source.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*"(\.[^"]+)"/g)) {
      const to = nodeOf(Path.resolve(Path.dirname(file), specifier))
      if (to !== undefined && to !== from) edges.add(to)
    }
  }
  return graph
}

/** The first cycle found, as the path that closes it, or `undefined`. */
const cycleOf = (graph: ReadonlyMap<string, ReadonlySet<string>>): ReadonlyArray<string> | undefined => {
  const done = new Set<string>()
  const path: Array<string> = []
  const visit = (node: string): ReadonlyArray<string> | undefined => {
    const open = path.indexOf(node)
    if (open >= 0) return [...path.slice(open), node]
    if (done.has(node)) return undefined
    path.push(node)
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next)
      if (cycle !== undefined) return cycle
    }
    path.pop()
    done.add(node)
    return undefined
  }
  for (const node of graph.keys()) {
    const cycle = visit(node)
    if (cycle !== undefined) return cycle
  }
  return undefined
}
