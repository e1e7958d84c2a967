import { assert, describe, it } from "@effect/vitest"
import { addUriSchemePlugin, fileSchemePlugin, httpSchemePlugin, removeUriSchemePlugin } from "@hyperjump/browser"
import * as JsonSchema from "@mcp-effect/client/JsonSchema"
import * as Effect from "effect/Effect"
import { afterEach, beforeEach, vi } from "vitest"

const toolOutput = {
  type: "object",
  properties: {
    id: { type: "string", pattern: "^[a-z0-9-]{8,64}$" },
    status: { enum: ["queued", "running", "done"] },
    priority: { type: "integer", minimum: 0, maximum: 10 },
    steps: {
      type: "array",
      items: {
        type: "object",
        properties: { name: { type: "string" }, ok: { type: "boolean" } },
        required: ["name", "ok"],
        additionalProperties: false
      }
    }
  },
  required: ["id", "status"]
}

const deepArray = (depth: number): unknown => {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

// $defs a0 … a(n-1), each referring twice to the next: 2^n subschemas once expanded.
const exponentialRefs = (n: number) => ({
  $defs: Object.fromEntries(
    Array.from({ length: n + 1 }, (_, i) => [
      `a${i}`,
      i === n ? { type: "string" } : { allOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] }
    ])
  ),
  $ref: "#/$defs/a0"
})

const validate = (schema: unknown, instance: unknown, options?: JsonSchema.Options) =>
  Effect.gen(function*() {
    const jsonSchema = yield* JsonSchema.make(options)
    return yield* jsonSchema.validate(schema, instance)
  }).pipe(Effect.scoped)

describe("JsonSchema (in-process)", () => {
  it.effect("accepts a matching instance", () =>
    Effect.gen(function*() {
      const outcome = yield* validate(toolOutput, {
        id: "job-0001",
        status: "done",
        priority: 3,
        steps: [{ name: "build", ok: true }]
      })
      assert.deepStrictEqual(outcome, { _tag: "Valid", dialect: "2020-12", partial: [] })
    }))

  it.effect("reports every violation with its instance path and a readable message", () =>
    Effect.gen(function*() {
      const outcome = yield* validate(toolOutput, {
        id: "NOPE",
        status: "lost",
        priority: 11.5,
        steps: [{ name: "build", ok: "yes", extra: 1 }]
      })
      assert.deepStrictEqual(outcome, {
        _tag: "Invalid",
        dialect: "2020-12",
        partial: [],
        omitted: 0,
        errors: [
          {
            path: "/id",
            message: "must match the pattern \"^[a-z0-9-]{8,64}$\"",
            keyword: "pattern",
            schemaPath: "/properties/id/pattern"
          },
          {
            path: "/status",
            message: "must be one of [\"queued\",\"running\",\"done\"]",
            keyword: "enum",
            schemaPath: "/properties/status/enum"
          },
          {
            path: "/priority",
            message: "must be integer, not number",
            keyword: "type",
            schemaPath: "/properties/priority/type"
          },
          {
            path: "/priority",
            message: "must be <= 10",
            keyword: "maximum",
            schemaPath: "/properties/priority/maximum"
          },
          {
            path: "/steps/0/ok",
            message: "must be boolean, not string",
            keyword: "type",
            schemaPath: "/properties/steps/items/properties/ok/type"
          },
          {
            path: "/steps/0/extra",
            message: "is not an allowed property",
            keyword: "additionalProperties",
            schemaPath: "/properties/steps/items/additionalProperties"
          }
        ]
      })
    }))

  it.effect("boolean schemas", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* validate(true, { any: "thing" }), {
        _tag: "Valid",
        dialect: "2020-12",
        partial: []
      })
      const outcome = yield* validate(false, 1)
      assert.strictEqual(JsonSchema.describe(outcome), "(root): is not allowed here (the schema is false)")
    }))

  it.effect("names the missing required properties", () =>
    Effect.gen(function*() {
      const outcome = yield* validate(toolOutput, { priority: 1 })
      assert.strictEqual(outcome._tag, "Invalid")
      assert.strictEqual(JsonSchema.describe(outcome), "(root): is missing required properties \"id\", \"status\"")
    }))

  it.effect("caps the errors it reports and counts the rest", () =>
    Effect.gen(function*() {
      const outcome = yield* validate({ items: { type: "string" } }, Array.from({ length: 50 }, (_, i) => i), {
        limits: { maxErrors: 5 }
      })
      assert.strictEqual(outcome._tag, "Invalid")
      if (outcome._tag === "Invalid") {
        assert.deepStrictEqual(outcome.errors.map((e) => e.path), ["/0", "/1", "/2", "/3", "/4"])
        assert.strictEqual(outcome.omitted, 45)
      }
    }))

  describe("dialects", () => {
    it("reads 2020-12 when $schema is absent, and every spelling of the supported ones", () => {
      const spellings: ReadonlyArray<[unknown, JsonSchema.Dialect]> = [
        [{}, "2020-12"],
        [true, "2020-12"],
        [{ $schema: "https://json-schema.org/draft/2020-12/schema" }, "2020-12"],
        [{ $schema: "https://json-schema.org/draft/2020-12/schema#" }, "2020-12"],
        [{ $schema: "https://json-schema.org/draft/2019-09/schema" }, "2019-09"],
        [{ $schema: "https://json-schema.org/draft/2019-09/schema#" }, "2019-09"],
        [{ $schema: "http://json-schema.org/draft-07/schema#" }, "draft-07"],
        [{ $schema: "http://json-schema.org/draft-07/schema" }, "draft-07"]
      ]
      for (const [schema, dialect] of spellings) {
        assert.deepStrictEqual(JsonSchema.dialectOf(schema), { _tag: "Supported", dialect })
      }
    })

    it.effect("an unknown dialect is its own outcome, naming it and the supported ones", () =>
      Effect.gen(function*() {
        const expected: JsonSchema.UnsupportedDialect = {
          _tag: "UnsupportedDialect",
          dialect: "http://json-schema.org/draft-04/schema#",
          supported: [
            "https://json-schema.org/draft/2020-12/schema",
            "https://json-schema.org/draft/2019-09/schema",
            "http://json-schema.org/draft-07/schema#"
          ]
        }
        const schema = { $schema: "http://json-schema.org/draft-04/schema#", type: "string" }
        assert.deepStrictEqual(JsonSchema.dialectOf(schema), expected)
        assert.deepStrictEqual(yield* validate(schema, "x"), expected)
        const jsonSchema = yield* JsonSchema.make()
        assert.deepStrictEqual(yield* jsonSchema.check(schema), expected)
        assert.strictEqual(
          JsonSchema.describe(expected),
          "unsupported JSON Schema dialect \"http://json-schema.org/draft-04/schema#\" (supported: https://json-schema.org/draft/2020-12/schema, https://json-schema.org/draft/2019-09/schema, http://json-schema.org/draft-07/schema#)"
        )
      }).pipe(Effect.scoped))

    it.effect("an unknown dialect in an embedded resource is refused too", () =>
      Effect.gen(function*() {
        const outcome = yield* validate({
          $defs: { old: { $id: "https://example.com/old", $schema: "http://json-schema.org/draft-04/schema#" } }
        }, 1)
        assert.strictEqual(outcome._tag, "UnsupportedDialect")
      }))

    it.effect("draft-07 semantics apply under its $schema", () =>
      Effect.gen(function*() {
        // In draft-07 `items` as an array is a tuple and $ref ignores its siblings.
        const schema = {
          $schema: "http://json-schema.org/draft-07/schema#",
          definitions: { s: { type: "string" } },
          properties: { a: { $ref: "#/definitions/s", type: "number" } },
          items: [{ type: "string" }]
        }
        assert.strictEqual((yield* validate(schema, { a: "x" }))._tag, "Valid")
        assert.strictEqual((yield* validate(schema, [1]))._tag, "Invalid")
      }))
  })

  describe("annotations only", () => {
    it.effect("format is reported as partial validation, not checked", () =>
      Effect.gen(function*() {
        const outcome = yield* validate({ type: "string", format: "email" }, "not an email")
        assert.deepStrictEqual(outcome, { _tag: "Valid", dialect: "2020-12", partial: ["format"] })
        assert.strictEqual(
          JsonSchema.describe(outcome),
          "valid (validation is partial: format only annotate and were not checked)"
        )
      }))

    it.effect("contentSchema is reported as partial validation, with the other content keywords", () =>
      Effect.gen(function*() {
        const outcome = yield* validate({
          properties: {
            doc: { type: "string", contentMediaType: "application/json", contentSchema: { type: "object" } }
          }
        }, { doc: "[]" })
        assert.deepStrictEqual(outcome, {
          _tag: "Valid",
          dialect: "2020-12",
          partial: ["contentMediaType", "contentSchema"]
        })
      }))

    it.effect("a format inside a const value is data, not a keyword", () =>
      Effect.gen(function*() {
        const outcome = yield* validate({ const: { format: "email" } }, { format: "email" })
        assert.deepStrictEqual(outcome, { _tag: "Valid", dialect: "2020-12", partial: [] })
      }))
  })

  describe("never fetches", () => {
    const fetches: Array<string> = []
    beforeEach(() => {
      fetches.length = 0
      vi.stubGlobal("fetch", (input: unknown) => {
        fetches.push(String(input))
        return Promise.resolve(new Response("{}", { status: 404 }))
      })
      vi.spyOn(httpSchemePlugin, "retrieve")
      vi.spyOn(fileSchemePlugin, "retrieve")
    })
    afterEach(() => {
      vi.unstubAllGlobals()
      vi.restoreAllMocks()
    })
    const untouched = () => {
      assert.deepStrictEqual(fetches, [])
      assert.strictEqual(vi.mocked(httpSchemePlugin.retrieve).mock.calls.length, 0)
      assert.strictEqual(vi.mocked(fileSchemePlugin.retrieve).mock.calls.length, 0)
    }

    it.effect("an external $ref makes the schema unusable and nothing is fetched or read", () =>
      Effect.gen(function*() {
        const schemas = [
          { $ref: "https://example.com/schema.json" },
          { properties: { a: { $ref: "http://127.0.0.1:1/x.json#/defs/a" } } },
          { $ref: "file:///etc/passwd" },
          { $id: "https://example.com/root.json", $ref: "other.json" },
          { $id: "file:///tmp/root.json", $ref: "other.json" },
          { $dynamicRef: "https://example.com/x#anchor" }
        ]
        for (const schema of schemas) {
          const outcome = yield* validate(schema, 1)
          assert.strictEqual(outcome._tag, "Unusable", JSON.stringify(schema))
        }
        const outcome = yield* validate({ $ref: "https://example.com/schema.json" }, 1)
        assert.deepStrictEqual(outcome, {
          _tag: "Unusable",
          reason:
            "$ref to https://example.com/schema.json points outside the schema (references resolve only inside it; nothing is fetched)"
        })
        untouched()
      }))

    it.effect("a $ref to a dialect's meta-schema resolves locally", () =>
      Effect.gen(function*() {
        const schema = { $ref: "https://json-schema.org/draft/2020-12/schema" }
        assert.strictEqual((yield* validate(schema, { type: "string" }))._tag, "Valid")
        assert.strictEqual((yield* validate(schema, { type: 12 }))._tag, "Invalid")
        untouched()
      }))

    it.effect("the guard does see a fetch when the library is allowed to fetch", () =>
      Effect.gen(function*() {
        addUriSchemePlugin("https", httpSchemePlugin)
        try {
          yield* validate({ $ref: "https://example.com/guard-check.json" }, 1)
        } finally {
          removeUriSchemePlugin("https")
        }
        assert.deepStrictEqual(fetches, ["https://example.com/guard-check.json"])
      }))
  })

  describe("bounds", () => {
    it.effect("an exponential $ref schema is refused before compiling, quickly", () =>
      Effect.gen(function*() {
        const outcome = yield* validate(exponentialRefs(64), "x")
        assert.deepStrictEqual(outcome, {
          _tag: "Unusable",
          reason: "the schema expands to more than 100000 subschemas through $ref"
        })
      }))

    it.effect("a recursive schema is not mistaken for an exponential one", () =>
      Effect.gen(function*() {
        const tree = {
          $defs: {
            node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } } }
          },
          $ref: "#/$defs/node"
        }
        const outcome = yield* validate(tree, { children: [{ children: [] }, { children: [{}] }] })
        assert.strictEqual(outcome._tag, "Valid")
      }))

    it.effect("a 100,000-deep instance is refused without a stack overflow", () =>
      Effect.gen(function*() {
        const outcome = yield* validate({ items: { $ref: "#" } }, deepArray(100_000))
        assert.strictEqual(outcome._tag, "Invalid")
        if (outcome._tag === "Invalid") {
          assert.strictEqual(outcome.errors.length, 1)
          assert.strictEqual(outcome.errors[0]!.keyword, "$instance")
          assert.strictEqual(outcome.errors[0]!.message, "nested deeper than 256 levels; not validated")
          assert.strictEqual(outcome.errors[0]!.path, "/0".repeat(256))
        }
      }))

    it.effect("a 100,000-deep schema is refused without a stack overflow", () =>
      Effect.gen(function*() {
        let schema: unknown = true
        for (let i = 0; i < 100_000; i++) schema = { not: schema }
        const outcome = yield* validate(schema, 1)
        assert.strictEqual(outcome._tag, "Unusable")
      }))

    it.effect("a schema over the size, subschema or pattern limits is unusable", () =>
      Effect.gen(function*() {
        const big = { enum: Array.from({ length: 200_000 }, (_, i) => `value-${i}`) }
        const many = { anyOf: Array.from({ length: 20_000 }, () => ({ type: "string" })) }
        const longPattern = { type: "string", pattern: "a".repeat(10_001) }
        const longPatternProperty = { patternProperties: { ["b".repeat(10_001)]: true } }
        assert.deepStrictEqual(yield* validate(big, "x"), {
          _tag: "Unusable",
          reason: "the schema is longer than 1000000 characters"
        })
        assert.deepStrictEqual(yield* validate(many, "x"), {
          _tag: "Unusable",
          reason: "the schema has more than 10000 subschemas"
        })
        for (const schema of [longPattern, longPatternProperty]) {
          assert.deepStrictEqual(yield* validate(schema, "x"), {
            _tag: "Unusable",
            reason: "a pattern is longer than 10000 characters"
          })
        }
        assert.strictEqual((yield* validate({ type: "string", pattern: "a".repeat(10_000) }, "x"))._tag, "Invalid")
      }))

    it.effect("patterns have ECMA-262 semantics, lookaround and Unicode classes included", () =>
      Effect.gen(function*() {
        const schema = { type: "string", pattern: "^(?=.*\\d)(?<!x)\\p{Lu}\\w+$" }
        assert.strictEqual((yield* validate(schema, "Ab1"))._tag, "Valid")
        assert.strictEqual((yield* validate(schema, "ab1"))._tag, "Invalid")
        assert.strictEqual((yield* validate({ type: "string", pattern: "(" }, "x"))._tag, "Unusable")
      }))

    it.live("the budget stops an evaluation that explodes with the instance, as a timeout", () =>
      Effect.gen(function*() {
        // Each level evaluates the next twice: 2^60 steps, all cheap, none a regex.
        const schema = { unevaluatedItems: false, prefixItems: [{ $ref: "#" }], anyOf: [{ items: { $ref: "#" } }] }
        const outcome = yield* validate(schema, deepArray(60), { budgetMs: 200 })
        assert.deepStrictEqual(outcome, { _tag: "Timeout", budgetMs: 200 })
      }))
  })

  describe("unusable schemas", () => {
    it.effect("a malformed keyword value", () =>
      Effect.gen(function*() {
        const outcome = yield* validate({ properties: { a: { type: 5 } } }, {})
        assert.strictEqual(outcome._tag, "Unusable")
        if (outcome._tag === "Unusable") {
          assert.match(outcome.reason, /^a keyword has a malformed value at \/properties\/a\/type/)
        }
      }))

    it.effect("colliding $ids and anchors", () =>
      Effect.gen(function*() {
        const twice = { $defs: { a: { $id: "https://example.com/a" }, b: { $id: "https://example.com/a" } } }
        const metaSchema = { $defs: { a: { $id: "https://json-schema.org/draft/2020-12/schema", type: "string" } } }
        const anchors = { $defs: { a: { $anchor: "x" }, b: { $anchor: "x" } } }
        assert.deepStrictEqual(yield* validate(twice, 1), {
          _tag: "Unusable",
          reason: "two subschemas declare the same $id \"https://example.com/a\""
        })
        assert.deepStrictEqual(yield* validate(metaSchema, 1), {
          _tag: "Unusable",
          reason:
            "$id \"https://json-schema.org/draft/2020-12/schema\" collides with a registered meta-schema or document"
        })
        assert.strictEqual((yield* validate(anchors, 1))._tag, "Unusable")
        // and the meta-schema still means what it meant
        assert.strictEqual(
          (yield* validate({ $ref: "https://json-schema.org/draft/2020-12/schema" }, 1))._tag,
          "Invalid"
        )
      }))

    it.effect("a $ref to nowhere inside the document", () =>
      Effect.gen(function*() {
        const outcome = yield* validate({ $ref: "#/$defs/missing" }, 1)
        assert.strictEqual(outcome._tag, "Unusable")
      }))
  })

  describe("cache", () => {
    it.effect("a cache key means one compiled schema, reused", () =>
      Effect.gen(function*() {
        const jsonSchema = yield* JsonSchema.make()
        const first = yield* jsonSchema.validate({ type: "string" }, 1, { cacheKey: "server/tool" })
        // The caller promised the key identifies the schema, so the compiled one is reused.
        const second = yield* jsonSchema.validate({ type: "number" }, 1, { cacheKey: "server/tool" })
        const third = yield* jsonSchema.validate({ type: "number" }, 1, { cacheKey: "server/tool@2" })
        assert.deepStrictEqual([first._tag, second._tag, third._tag], ["Invalid", "Invalid", "Valid"])
      }).pipe(Effect.scoped))

    it.effect("check compiles an input schema without an instance", () =>
      Effect.gen(function*() {
        const jsonSchema = yield* JsonSchema.make()
        assert.deepStrictEqual(yield* jsonSchema.check({ type: "object", format: "x" }), {
          _tag: "Ready",
          dialect: "2020-12",
          partial: ["format"]
        })
        assert.strictEqual((yield* jsonSchema.check({ $ref: "https://example.com/x" }))._tag, "Unusable")
      }).pipe(Effect.scoped))
  })
})
