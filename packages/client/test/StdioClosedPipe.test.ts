import { assert, describe, it } from "@effect/vitest"
import { ChildProcessSpawner } from "@mcp-effect/client/ChildProcess"
import type * as ChildProcess from "@mcp-effect/client/ChildProcess"
import { ConnectionError } from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Stdio from "@mcp-effect/client/Stdio"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

type Message = { readonly id?: number; readonly method?: string; readonly params?: Record<string, unknown> }

const answer = (message: Message): unknown => {
  switch (message.method) {
    case "initialize":
      return { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "mem", version: "1" } }
    case "tools/list":
      return { tools: [{ name: "echo", inputSchema: { type: "object" } }] }
    default:
      return { content: [{ type: "text", text: String(message.params?.name) }] }
  }
}

/**
 * In-memory stdio servers: each spawn answers requests until `breakPipe()`, after which its
 * stdin refuses writes while its exit is not reported yet (a process that just died under load).
 */
const spawner = () => {
  const state = { spawned: 0, broken: false }
  const service: ChildProcess.Service = {
    spawn: (options) =>
      Effect.gen(function*() {
        state.spawned++
        state.broken = false
        const exited = yield* Deferred.make<ChildProcess.ExitStatus>()
        const exit = () => Deferred.unsafeDone(exited, Effect.succeed({ code: 0, signal: null }))
        yield* Effect.addFinalizer(() => Effect.sync(exit))
        const encoder = new TextEncoder()
        return {
          pid: state.spawned,
          write: (text) => {
            if (state.broken) return false
            const message = JSON.parse(text) as Message
            if (message.id !== undefined) {
              const line = `${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: answer(message) })}\n`
              queueMicrotask(() => options.onStdout(encoder.encode(line)))
            }
            return true
          },
          endInput: exit,
          kill: () => {},
          exited: Deferred.await(exited)
        }
      })
  }
  return { state, layer: Layer.succeed(ChildProcessSpawner, service) }
}

describe("Stdio with a stdin that closed before the exit was seen", () => {
  it.scopedLive("fails the request that found the pipe closed and starts a new process for the next one", () => {
    const { layer, state } = spawner()
    return Effect.gen(function*() {
      const connection = yield* ServerConnection.make(
        { ...Stdio.config({ name: "mem", command: "mem" }), protocol: "legacy" },
        { clientInfo: { name: "test", version: "1" }, onNotification: () => {} }
      )
      yield* connection.callTool("echo", {})
      state.broken = true
      const error = yield* Effect.flip(connection.callTool("echo", {}))
      assert.instanceOf(error, ConnectionError)
      assert.include(error.message, "stdin is closed")
      const result = yield* connection.callTool("echo", {})
      assert.deepStrictEqual(result.content, [{ type: "text", text: "echo" }])
      assert.strictEqual(state.spawned, 2)
    }).pipe(Effect.provide(layer))
  })
})
