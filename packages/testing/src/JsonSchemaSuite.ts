/**
 * The official JSON Schema Test Suite (required tests, not `optional/`) run through a
 * `JsonSchema` service. A pinned copy of the suite (with its licence) lives in this package's
 * `fixtures/json-schema-test-suite`; its remote documents are registered as trusted remotes under
 * `http://localhost:1234/`, never fetched.
 *
 * @since 0.1.0
 */
import type * as JsonSchema from "@mcp-effect/client/JsonSchema"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/**
 * Where the suite is expected.
 *
 * @since 0.1.0
 * @category constants
 */
export const suiteRoot: string = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "fixtures/json-schema-test-suite"
)

/**
 * Whether the suite is there (the published package leaves the fixtures out).
 *
 * @since 0.1.0
 * @category constants
 */
export const present: boolean = fs.existsSync(path.join(suiteRoot, "tests"))

/**
 * The dialects and their folders in the suite.
 *
 * @since 0.1.0
 * @category constants
 */
export const dialects: ReadonlyArray<{ readonly dialect: JsonSchema.Dialect; readonly folder: string }> = [
  { dialect: "draft-07", folder: "draft7" },
  { dialect: "2019-09", folder: "draft2019-09" },
  { dialect: "2020-12", folder: "draft2020-12" }
]

interface Case {
  readonly description: string
  readonly schema: unknown
  readonly tests: ReadonlyArray<{ readonly description: string; readonly data: unknown; readonly valid: boolean }>
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

/**
 * The remotes for one dialect: the dialect-agnostic ones plus the dialect's own folder.
 *
 * @since 0.1.0
 * @category suite
 */
export const remotesFor = (folder: string): ReadonlyArray<{ readonly uri: string; readonly schema: unknown }> => {
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

/**
 * Runs every required test of a dialect's folder through `jsonSchema`.
 *
 * @since 0.1.0
 * @category suite
 */
export const run = (
  jsonSchema: JsonSchema.Service,
  folder: string,
  describe: (outcome: JsonSchema.Outcome) => string
): Effect.Effect<{ readonly passed: number; readonly total: number; readonly failures: ReadonlyArray<string> }> =>
  Effect.gen(function*() {
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
          if (outcome._tag === (test.valid ? "Valid" : "Invalid")) passed++
          else {
            failures.push(
              `${file} | ${testCase.description} | ${test.description}: expected ${
                test.valid ? "valid" : "invalid"
              }, got ${describe(outcome).slice(0, 160)}`
            )
          }
        }
      }
    }
    return { passed, total, failures }
  })
