/**
 * Validations per second of a realistic tool output schema, in process and in the Node worker
 * with a hard deadline (issue 7). No peer does this, so it is reported on its own.
 *
 * @since 0.1.0
 */
import * as JsonSchema from "@mcp-effect/client/JsonSchema"
import * as NodeJsonSchema from "@mcp-effect/node/NodeJsonSchema"
import * as Effect from "effect/Effect"

const schema = {
  type: "object",
  properties: {
    id: { type: "string", pattern: "^job-[0-9]{4}$" },
    status: { enum: ["queued", "running", "done", "failed"] },
    progress: { type: "number", minimum: 0, maximum: 1 },
    owner: { type: "string" },
    priority: { type: "integer" },
    tags: { type: "array", items: { type: "string" } },
    createdAt: { type: "string" },
    retries: { type: "integer", minimum: 0 },
    dryRun: { type: "boolean" },
    steps: {
      type: "array",
      items: {
        type: "object",
        properties: { name: { type: "string" }, ms: { type: "number" } },
        required: ["name", "ms"]
      }
    }
  },
  required: ["id", "status", "steps"]
}

const instance = {
  id: "job-0042",
  status: "done",
  progress: 1,
  owner: "ada",
  priority: 2,
  tags: ["a", "b"],
  createdAt: "2026-11-30T09:00:00Z",
  retries: 0,
  dryRun: false,
  steps: [{ name: "fetch", ms: 12 }, { name: "parse", ms: 3 }, { name: "store", ms: 7 }]
}

const measure = (service: JsonSchema.Service, count: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200; i++) yield* service.validate(schema, instance, { cacheKey: "bench" })
    const started = performance.now()
    for (let i = 0; i < count; i++) yield* service.validate(schema, instance, { cacheKey: "bench" })
    return count / ((performance.now() - started) / 1000)
  })

/**
 * Prints validations per second for both engines.
 *
 * @since 0.1.0
 */
export const validationBench = (quick: boolean): Promise<void> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const count = quick ? 2_000 : 20_000
    const inProcess = yield* measure(yield* JsonSchema.make(), count)
    const worker = yield* measure(yield* NodeJsonSchema.make(), Math.round(count / 4))
    console.log("\n=== JSON Schema validation of a realistic tool output (10 properties, nested array, enum, pattern)")
    console.log(`  in process (any platform)         ${Math.round(inProcess)} validations/s`)
    console.log(`  Node worker with a hard deadline  ${Math.round(worker)} validations/s`)
  })))
