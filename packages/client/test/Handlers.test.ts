import { assert, describe, it } from "@effect/vitest"
import * as Deprecations from "@mcp-effect/client/Deprecations"
import * as Handlers from "@mcp-effect/client/Handlers"
import * as McpClient from "@mcp-effect/client/McpClient"
import { InputRequiredError } from "@mcp-effect/client/McpError"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"

const user = (text: string) => ({ role: "user", content: { type: "text", text } })

describe("sampling requests are checked before the handler runs", () => {
  const handlers: Handlers.Handlers = { sampling: () => Effect.succeed({}) }
  const cases: ReadonlyArray<[string, Record<string, unknown>]> = [
    ["no messages", { messages: [] }],
    ["a bad role", { messages: [{ role: "system", content: { type: "text", text: "x" } }] }],
    ["missing content", { messages: [{ role: "user" }] }],
    ["tool results mixed with text", {
      messages: [{
        role: "user",
        content: [{ type: "tool_result", toolUseId: "1", content: [] }, { type: "text", text: "x" }]
      }]
    }],
    ["an unanswered tool use", {
      messages: [
        user("hi"),
        { role: "assistant", content: [{ type: "tool_use", id: "u1", name: "t", input: {} }] },
        user("no")
      ]
    }],
    ["tools without samplingSupportsTools", { messages: [user("hi")], tools: [{ name: "t", inputSchema: {} }] }],
    ["includeContext without sampling.context", { messages: [user("hi")], includeContext: "allServers" }]
  ]
  for (const [name, params] of cases) {
    it(`refuses ${name}`, () => {
      assert.isDefined(Handlers.samplingProblem(handlers, params))
    })
  }

  it("accepts a well-formed tool exchange when tools are supported", () => {
    const params = {
      messages: [
        user("weather?"),
        { role: "assistant", content: [{ type: "tool_use", id: "u1", name: "weather", input: {} }] },
        { role: "user", content: [{ type: "tool_result", toolUseId: "u1", content: [] }] }
      ],
      tools: [{ name: "weather", inputSchema: {} }]
    }
    assert.isUndefined(Handlers.samplingProblem({ ...handlers, samplingSupportsTools: true }, params))
    assert.deepStrictEqual(Handlers.capabilities({ ...handlers, samplingSupportsTools: true }), {
      sampling: { tools: {} }
    })
  })

  it.scoped("on 2026-07-28 an invalid sampling input request fails the call without invoking the handler", () =>
    Effect.gen(function*() {
      let invoked = 0
      const sampleTool = FakeServer.tool("sample", () =>
        Effect.succeed({
          resultType: "input_required" as const,
          inputRequests: {
            s: {
              method: "sampling/createMessage",
              params: { messages: [user("x")], tools: [{ name: "t", inputSchema: {} }] }
            }
          }
        }))
      const server = yield* FakeServer.make({ ...Scenarios.demo, era: "dual", tools: [sampleTool] })
      const client = yield* McpClient.make({
        servers: [server.config()],
        handlers: { sampling: () => Effect.sync(() => (invoked++, {})) }
      })
      const error = yield* Effect.flip(client.callTool("sample"))
      assert.instanceOf(error, InputRequiredError)
      assert.isFalse(error.resumable)
      assert.strictEqual(invoked, 0)
    }))
})

describe("roots", () => {
  it.scoped("are served to legacy servers and setRoots announces the change", () =>
    Effect.gen(function*() {
      const rootsTool = FakeServer.tool("noop", () => Effect.succeed("ok"))
      const server = yield* FakeServer.make({ ...Scenarios.demo, tools: [rootsTool] })
      const client = yield* McpClient.make({ servers: [server.config()], handlers: { roots: [] } })
      const [initialize] = yield* server.requests("initialize")
      assert.deepStrictEqual((initialize!.params!.capabilities as Record<string, unknown>).roots, { listChanged: true })
      yield* client.setRoots([{ uri: "file:///work", name: "work" }])
      const changed = (yield* server.received).filter((r) => r.method === "notifications/roots/list_changed")
      assert.strictEqual(changed.length, 1)
      assert.deepStrictEqual(client.roots(), [{ uri: "file:///work", name: "work" }])
    }))
})

describe("deprecation warnings", () => {
  it.effect("appear once per feature per process, and can be switched off", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => lines.push(String(message))))
      Deprecations.reset()
      yield* Deprecations.warnOnce("sampling").pipe(Effect.provide(logger))
      yield* Deprecations.warnOnce("sampling").pipe(Effect.provide(logger))
      assert.strictEqual(lines.filter((l) => l.includes("sampling is deprecated")).length, 1)
      assert.include(lines[0], "2027-07-28")
      Deprecations.setEnabled(false)
      yield* Deprecations.warnOnce("roots").pipe(Effect.provide(logger))
      Deprecations.setEnabled(true)
      assert.strictEqual(lines.length, 1)
    }))
})
