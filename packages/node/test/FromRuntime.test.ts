import { assert, describe, it } from "@effect/vitest"
import type { ConnectionState } from "@mcp-effect/client/ConnectionState"
import * as McpClient from "@mcp-effect/client/McpClient"
import { ConfigError, ConnectionError, ServerError } from "@mcp-effect/client/McpError"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import * as Stdio from "@mcp-effect/client/Stdio"
import { fromRuntime } from "@mcp-effect/node/Connect"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Metric from "effect/Metric"
import { fakeServerBin } from "./paths.js"

const server = (name: string) => Stdio.config({ name, command: process.execPath, args: [fakeServerBin] })

const runtimeOf = (...names: ReadonlyArray<string>) =>
  ManagedRuntime.make(NodeMcpClient.layer({ servers: names.map(server) }))

// Effect counts every fiber it starts (runtime metrics are on by default); read without one.
const fiberStarted = Metric.counter("effect_fiber_started", { incremental: true })
const fibersStarted = () => fiberStarted.unsafeValue([]).count

const textOf = (result: McpSchema.CallToolResult | undefined) => {
  const first = result?.content[0]
  return first?.type === "text" ? first.text : undefined
}

describe("Connect.fromRuntime: a Promise client over the caller's runtime", () => {
  it("calls the runtime's connections, a tool call starting no fiber; failures reject with the error itself", async () => {
    const runtime = runtimeOf("demo")
    try {
      const client = await fromRuntime(runtime)
      assert.deepStrictEqual(client.servers.map((s) => s.name), ["demo"])
      assert.strictEqual(textOf(await client.callTool("echo", { message: "warm" })), "warm")
      const before = fibersStarted()
      const results = []
      for (let i = 0; i < 20; i++) results.push(await client.callTool("echo", { message: `m${i}` }))
      assert.strictEqual(fibersStarted() - before, 0)
      assert.deepStrictEqual(results.map(textOf), Array.from({ length: 20 }, (_, i) => `m${i}`))
      // The same calls through runPromise start a fiber each.
      const service = await runtime.runPromise(McpClient.McpClient)
      const viaRunPromise = fibersStarted()
      for (let i = 0; i < 5; i++) await runtime.runPromise(service.callTool("echo", { message: "x" }))
      assert.isAtLeast(fibersStarted() - viaRunPromise, 5)
      const missing = await client.callTool("no-such-tool").then(() => undefined, (e: unknown) => e)
      assert.instanceOf(missing, ServerError)
      assert.isAbove((await client.listTools()).length, 0)
    } finally {
      await runtime.dispose()
    }
  })

  it("close() leaves the runtime's connections open; disposing the runtime closes them", async () => {
    const runtime = runtimeOf("demo")
    const client = await fromRuntime(runtime)
    const states: Array<ConnectionState["_tag"]> = []
    client.onStateChange((_server, state) => states.push(state._tag))
    await client.close()
    const service = await runtime.runPromise(McpClient.McpClient)
    const result = await runtime.runPromise(service.callTool("echo", { message: "still open" }))
    assert.strictEqual(textOf(result), "still open")
    assert.strictEqual(client.state("demo")._tag, "Ready")
    await runtime.dispose()
    // The listener went with close(): the runtime's own closing reached nobody.
    assert.deepStrictEqual(states, [])
    const after = await client.callTool("echo", { message: "x" }).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(after, ConnectionError)
  })

  it("state listeners follow every connection of the runtime", async () => {
    const runtime = runtimeOf("a", "b")
    const client = await fromRuntime(runtime)
    const seen: Array<string> = []
    client.onStateChange((name, state) => seen.push(`${name} ${state._tag}`))
    assert.strictEqual(client.state("a")._tag, "Ready")
    await runtime.dispose()
    while (!(seen.includes("a Closed") && seen.includes("b Closed"))) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    assert.isFalse(seen.some((s) => s.endsWith("Ready")))
    await client.close()
  })

  it("a runtime whose layer fails rejects with the layer's error itself", async () => {
    const runtime = runtimeOf("same", "same")
    const error = await fromRuntime(runtime).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, ConfigError)
    await runtime.dispose()
  })
})
