import { assert, describe, it } from "@effect/vitest"
import type { Dialect } from "@mcp-effect/client/JsonSchema"
import * as NodeJsonSchema from "@mcp-effect/node/NodeJsonSchema"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

// The JSON Schema Test Suite (required tests) once more, through the worker: the same answers
// must come back across the thread boundary, trusted remotes included. The in-process run with
// per-test failures is in packages/client/test/JsonSchemaCompliance.test.ts.

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
const suiteRoot = path.resolve(repoRoot, "../shared/json-schema-test-suite")
const present = fs.existsSync(path.join(suiteRoot, "tests"))

interface Case {
  readonly schema: unknown
  readonly tests: ReadonlyArray<{ readonly data: unknown; readonly valid: boolean }>
}

const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(file, "utf8"))

const listJson = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? listJson(path.join(dir, entry.name))
      : entry.name.endsWith(".json")
      ? [path.join(dir, entry.name)]
      : []
  )

const remotesFor = (folder: string) => {
  const root = path.join(suiteRoot, "remotes")
  return listJson(root)
    .filter((file) => {
      const top = path.relative(root, file).split(path.sep)[0]!
      return !/^(draft|v1$)/.test(top) || top === folder
    })
    .map((file) => ({
      uri: `http://localhost:1234/${path.relative(root, file).split(path.sep).join("/")}`,
      schema: readJson(file)
    }))
}

describe("NodeJsonSchema compliance (JSON Schema Test Suite, required tests)", () => {
  if (!present) {
    it.skip(`skipped: the suite is not at ${suiteRoot}`, () => {})
    return
  }
  const dialects: ReadonlyArray<readonly [Dialect, string]> = [
    ["draft-07", "draft7"],
    ["2019-09", "draft2019-09"],
    ["2020-12", "draft2020-12"]
  ]
  for (const [dialect, folder] of dialects) {
    it.live(`passes at least 99 % of the ${dialect} tests in the worker`, () =>
      Effect.gen(function*() {
        const jsonSchema = yield* NodeJsonSchema.make({
          defaultDialect: dialect,
          remotes: remotesFor(folder),
          budgetMs: 10_000
        })
        const dir = path.join(suiteRoot, "tests", folder)
        let passed = 0
        let total = 0
        for (const file of fs.readdirSync(dir).filter((name) => name.endsWith(".json")).sort()) {
          for (const [index, testCase] of (readJson(path.join(dir, file)) as ReadonlyArray<Case>).entries()) {
            for (const test of testCase.tests) {
              total++
              const outcome = yield* jsonSchema.validate(testCase.schema, test.data, { cacheKey: `${file}#${index}` })
              if (outcome._tag === (test.valid ? "Valid" : "Invalid")) passed++
            }
          }
        }
        const percent = (100 * passed) / total
        console.log(`JSON Schema Test Suite ${dialect} (worker): ${passed}/${total} (${percent.toFixed(1)} %)`)
        assert.isAtLeast(percent, 99)
      }).pipe(Effect.scoped))
  }
})
