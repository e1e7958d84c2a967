import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as JsonText from "../src/internal/jsonText.js"

describe("JsonText.parse", () => {
  it("parses JSON", () => {
    assert.deepStrictEqual(JsonText.parse("{\"a\": [1, true, null]}"), Either.right({ a: [1, true, null] }))
  })

  it("places a mistake by line and column on every runtime (Bun's JSON.parse names no position)", () => {
    assert.deepStrictEqual(
      JsonText.parse("{\"a\": nope}"),
      Either.left("not valid JSON at line 1, column 7: unexpected token")
    )
    assert.deepStrictEqual(
      JsonText.parse("{\n  \"a\": 1,\n  \"b\" 2\n}"),
      Either.left("not valid JSON at line 3, column 7: \":\" was expected")
    )
  })

  it("refuses what JSON refuses and JSONC allows: comments, trailing commas, no content", () => {
    assert.isTrue(Either.isLeft(JsonText.parse("{\"a\": 1,}")))
    assert.isTrue(Either.isLeft(JsonText.parse("// hi\n{}")))
    assert.isTrue(Either.isLeft(JsonText.parse("")))
  })
})
