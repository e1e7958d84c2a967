import { assert, describe, it } from "@effect/vitest"
import * as JsonSchema from "@mcp-effect/client/JsonSchema"
import * as McpClient from "@mcp-effect/client/McpClient"
import { ValidationError } from "@mcp-effect/client/McpError"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"

const weather = (answer: unknown, extra: Record<string, unknown> = {}) =>
  FakeServer.tool("weather", () => Effect.succeed(answer as FakeServer.ToolAnswer), {
    outputSchema: {
      type: "object",
      properties: { temperature: { type: "number" }, city: { type: "string", format: "city" } },
      required: ["temperature"]
    },
    ...extra
  })

const setup = (tool: FakeServer.ToolDefinition, options: Partial<McpClient.Options> = {}, era?: "dual") =>
  Effect.gen(function*() {
    const server = yield* FakeServer.make({ tools: [tool], ...(era === undefined ? {} : { era }) })
    const client = yield* McpClient.make({ servers: [server.config()], ...options })
    return { server, client }
  })

const captureLogs = () => {
  const lines: Array<string> = []
  return {
    lines,
    layer: Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => lines.push(String(message))))
  }
}

describe("structured output validation", () => {
  it.scoped("strict: a result that breaks its outputSchema fails with ValidationError naming the path", () =>
    Effect.gen(function*() {
      const { client } = yield* setup(
        weather({ content: [], structuredContent: { temperature: "hot" } }),
        { validateStructuredContent: "strict" }
      )
      const error = yield* Effect.flip(client.callTool("weather"))
      assert.instanceOf(error, ValidationError)
      assert.strictEqual(error.errors?.[0]?.path, "/temperature")
    }))

  it.scoped("warn (default): the result is returned and the violation logged", () => {
    const logs = captureLogs()
    return Effect.gen(function*() {
      const { client } = yield* setup(weather({ content: [], structuredContent: { temperature: "hot" } }))
      const result = yield* client.callTool("weather")
      assert.deepStrictEqual(result.structuredContent, { temperature: "hot" })
      assert.isDefined(logs.lines.find((l) => l.includes("does not match its outputSchema")))
    }).pipe(Effect.provide(logs.layer))
  })

  it.scoped("a successful result without structured content is a violation; isError results are not checked", () =>
    Effect.gen(function*() {
      const missing = yield* setup(weather({ content: [] }), { validateStructuredContent: "strict" })
      assert.instanceOf(yield* Effect.flip(missing.client.callTool("weather")), ValidationError)
      const failed = yield* setup(weather({ content: [], isError: true }), { validateStructuredContent: "strict" })
      assert.isTrue((yield* failed.client.callTool("weather")).isError)
    }))

  it.scoped("2026-07-28 accepts any JSON value as structured content; earlier revisions only objects", () =>
    Effect.gen(function*() {
      const scalar = (era?: "dual") =>
        setup(
          FakeServer.tool("count", () => Effect.succeed({ content: [], structuredContent: 3 }), {
            outputSchema: { type: "integer" }
          }),
          { validateStructuredContent: "strict" },
          era
        )
      const modern = yield* scalar("dual")
      assert.strictEqual((yield* modern.client.callTool("count")).structuredContent, 3)
      const legacy = yield* scalar()
      assert.instanceOf(yield* Effect.flip(legacy.client.callTool("count")), ValidationError)
    }))

  it.scoped("an input schema in an unknown dialect refuses the call before anything is sent", () =>
    Effect.gen(function*() {
      const { client, server } = yield* setup(
        weather({ content: [], structuredContent: { temperature: 1 } }, {
          inputSchema: { $schema: "urn:unknown-dialect", type: "object" }
        })
      )
      const error = yield* Effect.flip(client.callTool("weather"))
      assert.instanceOf(error, ValidationError)
      assert.include(error.message, "urn:unknown-dialect")
      assert.include(error.message, "2020-12")
      assert.strictEqual((yield* server.requests("tools/call")).length, 0)
    }))

  it.scoped("an output schema in an unknown dialect is an error in both modes", () =>
    Effect.gen(function*() {
      const { client } = yield* setup(
        weather({ content: [], structuredContent: { temperature: 1 } }, {
          outputSchema: { $schema: "urn:unknown-dialect", type: "object" }
        })
      )
      assert.instanceOf(yield* Effect.flip(client.callTool("weather")), ValidationError)
    }))

  it.scoped("a schema using format gets a 'validation is partial' warning", () => {
    const logs = captureLogs()
    return Effect.gen(function*() {
      const { client } = yield* setup(weather({ content: [], structuredContent: { temperature: 1, city: "Lisbon" } }))
      yield* client.callTool("weather")
      assert.isDefined(logs.lines.find((l) => l.includes("partial") && l.includes("format")))
    }).pipe(Effect.provide(logs.layer))
  })
})

describe("an unusable outputSchema", () => {
  const answer = { content: [], structuredContent: { temperature: "not even a number" } }
  // A validator whose every validation runs out of time: the engine's own timeout is tested in JsonSchema.test.ts.
  const timingOut = Layer.succeed(JsonSchema.JsonSchema, {
    validate: () => Effect.succeed({ _tag: "Timeout", budgetMs: 5 }),
    check: () => Effect.succeed({ _tag: "Timeout", budgetMs: 5 }),
    dialectOf: (schema) => JsonSchema.dialectOf(schema)
  })
  const kinds: ReadonlyArray<{
    readonly kind: string
    readonly outputSchema: Record<string, unknown>
    readonly validator: Layer.Layer<JsonSchema.JsonSchema>
    readonly reason: string
  }> = [
    {
      kind: "a $ref that would need fetching",
      outputSchema: { $ref: "https://schemas.example/weather.json" },
      validator: JsonSchema.layer(),
      reason: "nothing is fetched"
    },
    {
      kind: "a schema over the subschema budget",
      outputSchema: { type: "object", properties: { a: {}, b: {}, c: {}, d: {}, e: {}, f: {} } },
      validator: JsonSchema.layer({ limits: { maxSubschemas: 5 } }),
      reason: "more than 5 subschemas"
    },
    {
      kind: "a schema over the $ref expansion budget",
      outputSchema: {
        $defs: { a: { properties: { x: { $ref: "#/$defs/b" }, y: { $ref: "#/$defs/b" } } }, b: { type: "number" } },
        properties: { p: { $ref: "#/$defs/a" }, q: { $ref: "#/$defs/a" } }
      },
      validator: JsonSchema.layer({ limits: { maxRefExpansion: 6 } }),
      reason: "expands to more than 6 subschemas"
    },
    {
      kind: "an engine timeout",
      outputSchema: { type: "object" },
      validator: timingOut,
      reason: "time budget of 5 ms"
    }
  ]

  for (const { kind, outputSchema, reason, validator } of kinds) {
    it.scoped(`strict: ${kind} fails the call with ValidationError saying why`, () =>
      Effect.gen(function*() {
        const { client } = yield* setup(weather(answer, { outputSchema }), { validateStructuredContent: "strict" })
        const error = yield* Effect.flip(client.callTool("weather"))
        assert.instanceOf(error, ValidationError)
        assert.include(error.unusable, reason)
        assert.include(error.message, "outputSchema is unusable")
      }).pipe(Effect.provide(validator)))

    it.scoped(`warn: ${kind} returns the result unvalidated, with a warning`, () => {
      const logs = captureLogs()
      return Effect.gen(function*() {
        const { client } = yield* setup(weather(answer, { outputSchema }))
        assert.deepStrictEqual((yield* client.callTool("weather")).structuredContent, answer.structuredContent)
        assert.isDefined(logs.lines.find((l) => l.includes("outputSchema is unusable") && l.includes(reason)))
      }).pipe(Effect.provide(Layer.merge(validator, logs.layer)))
    })
  }

  it.scoped("an output schema in an unknown dialect fails the call in strict mode too", () =>
    Effect.gen(function*() {
      const { client } = yield* setup(
        weather({ content: [], structuredContent: { temperature: 1 } }, {
          outputSchema: { $schema: "urn:unknown-dialect", type: "object" }
        }),
        { validateStructuredContent: "strict" }
      )
      const error = yield* Effect.flip(client.callTool("weather"))
      assert.instanceOf(error, ValidationError)
      assert.include(error.message, "urn:unknown-dialect")
    }))
})

describe("callToolStreaming", () => {
  it.scoped("streams the call's progress, then its result as the last chunk", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const client = yield* McpClient.make({ servers: [server.config()] })
      const fiber = yield* Effect.fork(
        Stream.runCollect(client.callToolStreaming("progress", { steps: 2, delayMs: 5 }))
      )
      yield* TestClock.adjust("20 millis")
      const chunks = Chunk.toReadonlyArray(yield* Fiber.join(fiber))
      assert.deepStrictEqual(chunks.map((c) => c._tag), ["Progress", "Progress", "Result"])
    }))

  it.scoped("a complete result chunk is validated like callTool's", () =>
    Effect.gen(function*() {
      const { client } = yield* setup(
        weather({ content: [], structuredContent: { temperature: "hot" } }),
        { validateStructuredContent: "strict" }
      )
      const error = yield* Effect.flip(Stream.runDrain(client.callToolStreaming("weather")))
      assert.instanceOf(error, ValidationError)
    }))
})
