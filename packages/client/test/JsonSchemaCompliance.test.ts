import { assert, describe, it } from "@effect/vitest"
import * as JsonSchema from "@mcp-effect/client/JsonSchema"
import * as Suite from "@mcp-effect/testing/JsonSchemaSuite"
import * as Effect from "effect/Effect"

// The official JSON Schema Test Suite, required tests only, through the in-process module.

describe("JsonSchema compliance (JSON Schema Test Suite, required tests)", () => {
  it("has the JSON Schema Test Suite to run", () => {
    assert.isTrue(
      Suite.present,
      `the JSON Schema Test Suite is missing at ${Suite.suiteRoot} (a pinned copy belongs there)`
    )
  })
  for (const { dialect, folder } of Suite.dialects) {
    it.live(`passes at least 99 % of the ${dialect} tests`, () =>
      Effect.gen(function*() {
        const jsonSchema = yield* JsonSchema.make({
          defaultDialect: dialect,
          remotes: Suite.remotesFor(folder),
          budgetMs: 10_000
        })
        const { failures, passed, total } = yield* Suite.run(jsonSchema, folder, JsonSchema.describe)
        const percent = (100 * passed) / total
        console.log(
          `JSON Schema Test Suite ${dialect}: ${passed}/${total} required tests pass (${percent.toFixed(1)} %)`
        )
        for (const failure of failures) console.log(`  failed: ${failure}`)
        assert.isAtLeast(percent, 99)
      }).pipe(Effect.scoped))
  }
})
