/**
 * Drift pinning from a lock file in the Node layers (issue #36, point 5): `NodeMcpClient.fromFile`
 * and the facade's `connectFromConfig` take `pin: { lock, mode }` and pin the servers it names.
 */
import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import { ToolPinMismatchError } from "@mcp-effect/client/McpError"
import * as ToolPin from "@mcp-effect/client/ToolPin"
import { connectFromConfig } from "@mcp-effect/node/Connect"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fakeServerBin } from "./paths.js"

/** A configuration naming the fake server `demo`, and a lock whose pin of echo is add's. */
const files = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "mcp-node-pin-"))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )
  const config = path.join(dir, "mcp.json")
  fs.writeFileSync(
    config,
    JSON.stringify({ mcpServers: { demo: { command: process.execPath, args: [fakeServerBin] } } })
  )
  const tools = yield* Effect.scoped(
    Effect.flatMap(
      Layer.build(NodeMcpClient.fromFile(config)),
      (context) => Context.get(context, McpClient.McpClient).listTools()
    )
  )
  const lock = yield* ToolPin.lock(tools)
  const entries = lock.servers.demo!
  const lockFile = path.join(dir, "mcp-lock.json")
  fs.writeFileSync(lockFile, JSON.stringify({ version: 1, servers: { demo: { ...entries, echo: entries.add } } }))
  return { config, lockFile }
})

describe("drift pinning in the Node layers", () => {
  it.scopedLive("NodeMcpClient.fromFile with a lock file path, strict", () =>
    Effect.gen(function*() {
      const { config, lockFile } = yield* files
      const context = yield* Layer.build(NodeMcpClient.fromFile(config, { pin: { lock: lockFile, mode: "strict" } }))
      const client = Context.get(context, McpClient.McpClient)
      assert.notInclude((yield* client.listTools()).map((t) => t.name), "echo")
      assert.instanceOf(yield* Effect.flip(client.callTool("echo", { message: "hi" })), ToolPinMismatchError)
    }))

  it.scopedLive("connectFromConfig with a lock file path, warn", () =>
    Effect.gen(function*() {
      const { config, lockFile } = yield* files
      const drifts: Array<ToolPin.ToolDrift> = []
      const client = yield* Effect.promise(() =>
        connectFromConfig(config, { pin: { lock: lockFile }, onToolDrift: (d) => drifts.push(d), logLevel: "None" })
      )
      const names = yield* Effect.promise(() => client.listTools().finally(() => client.close()))
      assert.include(names.map((t) => t.name), "echo")
      assert.deepStrictEqual(drifts.map((d) => [d.server, d.tool, d.kind, d.refused]), [[
        "demo",
        "echo",
        "changed",
        false
      ]])
    }))
})
