import { assert, describe, it } from "@effect/vitest"
import * as JsonSchema from "@mcp-effect/client/JsonSchema"
import * as NodeJsonSchema from "@mcp-effect/node/NodeJsonSchema"
import * as Suite from "@mcp-effect/testing/JsonSchemaSuite"
import * as Effect from "effect/Effect"

// The JSON Schema Test Suite (required tests) once more, through the worker: the same answers
// must come back across the thread boundary, trusted remotes included.

describe("NodeJsonSchema compliance (JSON Schema Test Suite, required tests)", () => {
  it("has the JSON Schema Test Suite to run", () => {
    assert.isTrue(
      Suite.present,
      `the JSON Schema Test Suite is missing at ${Suite.suiteRoot} (a pinned copy belongs there)`
    )
  })
  for (const { dialect, folder } of Suite.dialects) {
    it.live(`passes at least 99 % of the ${dialect} tests in the worker`, () =>
      Effect.gen(function*() {
        const jsonSchema = yield* NodeJsonSchema.make({
          defaultDialect: dialect,
          remotes: Suite.remotesFor(folder),
          budgetMs: 10_000
        })
        const { passed, total } = yield* Suite.run(jsonSchema, folder, JsonSchema.describe)
        const percent = (100 * passed) / total
        console.log(`JSON Schema Test Suite ${dialect} (worker): ${passed}/${total} (${percent.toFixed(1)} %)`)
        assert.isAtLeast(percent, 99)
      }).pipe(Effect.scoped))
  }
})
