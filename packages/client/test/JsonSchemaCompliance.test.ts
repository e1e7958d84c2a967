import { assert, describe, it } from "@effect/vitest"
import type { Dialect } from "@mcp-effect/client/JsonSchema"
import * as JsonSchema from "@mcp-effect/client/JsonSchema"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

// The official JSON Schema Test Suite, required tests only (not `optional/`), through our module.
// The suite's remote documents are registered as trusted remotes under http://localhost:1234/
// and never fetched.

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
const suiteRoot = path.resolve(repoRoot, "../shared/json-schema-test-suite")
const present = fs.existsSync(path.join(suiteRoot, "tests"))

interface Case {
  readonly description: string
  readonly schema: unknown
  readonly tests: ReadonlyArray<{ readonly description: string; readonly data: unknown; readonly valid: boolean }>
}

const dialects: ReadonlyArray<{ readonly dialect: Dialect; readonly folder: string }> = [
  { dialect: "draft-07", folder: "draft7" },
  { dialect: "2019-09", folder: "draft2019-09" },
  { dialect: "2020-12", folder: "draft2020-12" }
]

const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(file, "utf8"))

const listJson = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? listJson(path.join(dir, entry.name))
      : entry.name.endsWith(".json")
      ? [path.join(dir, entry.name)]
      : []
  )

// Remotes for one dialect: the dialect-agnostic ones plus the dialect's own folder.
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

const run = (dialect: Dialect, folder: string) =>
  Effect.gen(function*() {
    const jsonSchema = yield* JsonSchema.make({
      defaultDialect: dialect,
      remotes: remotesFor(folder),
      budgetMs: 10_000
    })
    const dir = path.join(suiteRoot, "tests", folder)
    let passed = 0
    let total = 0
    const failures: Array<string> = []
    for (const file of fs.readdirSync(dir).filter((name) => name.endsWith(".json")).sort()) {
      const cases = readJson(path.join(dir, file)) as ReadonlyArray<Case>
      for (const [index, testCase] of cases.entries()) {
        for (const test of testCase.tests) {
          total++
          const outcome = yield* jsonSchema.validate(testCase.schema, test.data, { cacheKey: `${file}#${index}` })
          const ok = test.valid ? outcome._tag === "Valid" : outcome._tag === "Invalid"
          if (ok) passed++
          else {
            failures.push(
              `${file} | ${testCase.description} | ${test.description}: expected ${
                test.valid ? "valid" : "invalid"
              }, got ${JsonSchema.describe(outcome).slice(0, 160)}`
            )
          }
        }
      }
    }
    return { passed, total, failures }
  }).pipe(Effect.scoped)

describe("JsonSchema compliance (JSON Schema Test Suite, required tests)", () => {
  if (!present) {
    it.skip(`skipped: the suite is not at ${suiteRoot}`, () => {})
    console.warn(`JsonSchema compliance skipped: the JSON Schema Test Suite is not at ${suiteRoot}`)
    return
  }
  for (const { dialect, folder } of dialects) {
    it.live(`passes at least 99 % of the ${dialect} tests`, () =>
      Effect.gen(function*() {
        const { failures, passed, total } = yield* run(dialect, folder)
        const percent = (100 * passed) / total
        console.log(
          `JSON Schema Test Suite ${dialect}: ${passed}/${total} required tests pass (${percent.toFixed(1)} %)`
        )
        for (const failure of failures) console.log(`  failed: ${failure}`)
        assert.isAtLeast(percent, 99)
      }))
  }
})
