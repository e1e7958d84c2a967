import { assert, describe, it } from "@effect/vitest"
import * as JsonSchema from "@mcp-effect/client/JsonSchema"
import * as NodeJsonSchema from "@mcp-effect/node/NodeJsonSchema"
import * as Effect from "effect/Effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

// Runs against the built worker (packages/node/dist); `npm test` builds before testing.

const toolOutput = {
  type: "object",
  properties: {
    id: { type: "string", pattern: "^[a-z0-9-]{8,64}$" },
    status: { enum: ["queued", "running", "done"] },
    steps: {
      type: "array",
      items: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }
    },
    created: { type: "string", format: "date-time" }
  },
  required: ["id", "status"]
}

const redos = { type: "string", pattern: "^(a+)+$" }
const evil = `${"a".repeat(30)}!`

const deepArray = (depth: number): unknown => {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

const elapsed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const started = performance.now()
    const value = yield* effect
    return [value, performance.now() - started] as const
  })

describe("NodeJsonSchema (worker with a hard deadline)", () => {
  it.live("a catastrophic pattern ends as a timeout within the budget, and the next call works", () =>
    Effect.gen(function*() {
      const jsonSchema = yield* NodeJsonSchema.make({ budgetMs: 250 })
      // The worker is up and warm before the clock starts.
      assert.strictEqual((yield* jsonSchema.validate(toolOutput, { id: "job-0001", status: "done" }))._tag, "Valid")
      const [outcome] = yield* elapsed(jsonSchema.validate(redos, evil))
      assert.deepStrictEqual(outcome, { _tag: "Timeout", budgetMs: 250 })
      // A new worker serves the next calls; the poisoned one is gone.
      assert.strictEqual((yield* jsonSchema.validate(redos, "aaaa"))._tag, "Valid")
      assert.strictEqual((yield* jsonSchema.validate(toolOutput, { id: "x", status: "done" }))._tag, "Invalid")
      const [again] = yield* elapsed(jsonSchema.validate(redos, evil))
      assert.deepStrictEqual(again, { _tag: "Timeout", budgetMs: 250 })
    }).pipe(Effect.scoped))

  it.live("answers like the in-process validator", () =>
    Effect.gen(function*() {
      const inWorker = yield* NodeJsonSchema.make()
      const inProcess = yield* JsonSchema.make()
      const cases: ReadonlyArray<readonly [unknown, unknown]> = [
        [toolOutput, { id: "job-0001", status: "done", steps: [{ ok: true }] }],
        [toolOutput, { id: "NOPE", status: "lost", steps: [{}], created: "yesterday" }],
        [{ $schema: "http://json-schema.org/draft-04/schema#" }, 1],
        [{ $ref: "https://example.com/x.json" }, 1],
        [{ type: 5 }, 1],
        [{ items: { $ref: "#" } }, deepArray(100_000)]
      ]
      for (const [schema, instance] of cases) {
        assert.deepStrictEqual(
          yield* inWorker.validate(schema, instance),
          yield* inProcess.validate(schema, instance)
        )
      }
      assert.deepStrictEqual(yield* inWorker.check(toolOutput), yield* inProcess.check(toolOutput))
      assert.deepStrictEqual(inWorker.dialectOf({ $schema: "x" }), inProcess.dialectOf({ $schema: "x" }))
    }).pipe(Effect.scoped))

  it.live("a 100,000-deep instance is refused without a stack overflow and without being copied", () =>
    Effect.gen(function*() {
      const jsonSchema = yield* NodeJsonSchema.make()
      const outcome = yield* jsonSchema.validate({ items: { $ref: "#" }, format: "x" }, deepArray(100_000))
      assert.strictEqual(outcome._tag, "Invalid")
      if (outcome._tag === "Invalid") {
        assert.deepStrictEqual(outcome.partial, ["format"])
        assert.strictEqual(outcome.errors[0]!.keyword, "$instance")
      }
      let schema: unknown = true
      for (let i = 0; i < 100_000; i++) schema = { not: schema }
      assert.strictEqual((yield* jsonSchema.validate(schema, 1))._tag, "Unusable")
    }).pipe(Effect.scoped))

  it.live("an exponential $ref schema is refused quickly", () =>
    Effect.gen(function*() {
      const jsonSchema = yield* NodeJsonSchema.make()
      const defs: Record<string, unknown> = { a64: { type: "string" } }
      for (let i = 0; i < 64; i++) {
        defs[`a${i}`] = { allOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] }
      }
      const [outcome] = yield* elapsed(jsonSchema.validate({ $defs: defs, $ref: "#/$defs/a0" }, "x"))
      assert.strictEqual(outcome._tag, "Unusable")
    }).pipe(Effect.scoped))

  it.live("an unknown dialect is refused", () =>
    Effect.gen(function*() {
      const jsonSchema = yield* NodeJsonSchema.make()
      const schema = { $schema: "https://json-schema.org/draft/2021-01/schema" }
      const outcome = yield* jsonSchema.validate(schema, 1)
      assert.strictEqual(outcome._tag, "UnsupportedDialect")
      assert.deepStrictEqual<unknown>(jsonSchema.dialectOf(schema), outcome)
    }).pipe(Effect.scoped))

  it.live("nothing reaches the network, whatever the schema refers to", () =>
    Effect.gen(function*() {
      const requests: Array<string> = []
      const server = Http.createServer((request, response) => {
        requests.push(request.url ?? "")
        response.setHeader("content-type", "application/schema+json")
        response.end("{\"type\": \"string\"}")
      })
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => {
          server.listen(0, "127.0.0.1", () => resume(Effect.void))
        }),
        () => Effect.sync(() => server.close())
      )
      const { port } = server.address() as AddressInfo
      const jsonSchema = yield* NodeJsonSchema.make()
      const schemas = [
        { $ref: `http://127.0.0.1:${port}/schema.json` },
        { $id: `http://127.0.0.1:${port}/root.json`, properties: { a: { $ref: "other.json" } } },
        { $schema: `http://127.0.0.1:${port}/meta.json` }
      ]
      const outcomes = []
      for (const schema of schemas) outcomes.push((yield* jsonSchema.validate(schema, { a: 1 }))._tag)
      assert.deepStrictEqual(outcomes, ["Unusable", "Unusable", "UnsupportedDialect"])
      assert.deepStrictEqual(requests, [])
    }).pipe(Effect.scoped))

  it.live("concurrent validations are all answered", () =>
    Effect.gen(function*() {
      const jsonSchema = yield* NodeJsonSchema.make()
      const outcomes = yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => i),
        (i) => jsonSchema.validate(toolOutput, { id: `job-${String(i).padStart(4, "0")}`, status: i % 2 ? "done" : 7 }),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(
        outcomes.map((o) => o._tag),
        Array.from({ length: 50 }, (_, i) => (i % 2 ? "Valid" : "Invalid"))
      )
    }).pipe(Effect.scoped))

  it.live("a schema the worker evicted is sent again", () =>
    Effect.gen(function*() {
      const jsonSchema = yield* NodeJsonSchema.make({ cacheSize: 2 })
      assert.strictEqual((yield* jsonSchema.validate({ type: "string" }, "x", { cacheKey: "a" }))._tag, "Valid")
      // Two schemas without a key push "a" out of the worker's cache, not out of ours.
      yield* jsonSchema.validate({ type: "number" }, 1)
      yield* jsonSchema.validate({ type: "boolean" }, true)
      assert.strictEqual((yield* jsonSchema.validate({ type: "string" }, 1, { cacheKey: "a" }))._tag, "Invalid")
      assert.strictEqual((yield* jsonSchema.validate({ type: "string" }, "y", { cacheKey: "a" }))._tag, "Valid")
    }).pipe(Effect.scoped))

  it.live("as a layer", () =>
    Effect.gen(function*() {
      const jsonSchema = yield* JsonSchema.JsonSchema
      const outcome = yield* jsonSchema.validate({ type: "integer" }, 1.5, { cacheKey: "s/t" })
      assert.strictEqual(JsonSchema.describe(outcome), "(root): must be integer, not number")
    }).pipe(Effect.provide(NodeJsonSchema.layer())))
})

describe("NodeJsonSchema in a process with nothing else alive", () => {
  it("the first validation keeps the process alive while the worker starts", async () => {
    const { execFile } = await import("node:child_process")
    const program = new URL("./programs/validateAlone.mjs", import.meta.url)
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [program.pathname],
        { timeout: 30_000 },
        (error, out, err) => error === null ? resolve(out) : reject(new Error(`${error.message}\n${err}`))
      )
    )
    assert.strictEqual(stdout.trim(), "outcome Valid")
  })
})
