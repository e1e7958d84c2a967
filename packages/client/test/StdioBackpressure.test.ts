import { assert, describe, it } from "@effect/vitest"
import { ChildProcessSpawner } from "@mcp-effect/client/ChildProcess"
import type * as ChildProcess from "@mcp-effect/client/ChildProcess"
import * as RpcPeer from "@mcp-effect/client/RpcPeer"
import * as Stdio from "@mcp-effect/client/Stdio"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** One in-memory process: what it prints is pushed by the test, its stdin is recorded, and so are the pauses of its stdout. */
const spawner = () => {
  const state = {
    written: [] as Array<{ readonly id: number }>,
    pauses: [] as Array<boolean>,
    print: (_text: string) => {}
  }
  const service: ChildProcess.Service = {
    spawn: (options) =>
      Effect.gen(function*() {
        const exited = yield* Deferred.make<ChildProcess.ExitStatus>()
        const exit = () => Deferred.unsafeDone(exited, Effect.succeed({ code: 0, signal: null }))
        yield* Effect.addFinalizer(() => Effect.sync(exit))
        state.print = (text) => options.onStdout(new TextEncoder().encode(text))
        return {
          pid: 1,
          write: (text) => {
            for (const line of text.split("\n")) if (line !== "") state.written.push(JSON.parse(line))
            return true
          },
          endInput: exit,
          kill: () => {},
          exited: Deferred.await(exited),
          pauseStdout: (paused) => void state.pauses.push(paused)
        }
      })
  }
  return { state, layer: Layer.succeed(ChildProcessSpawner, service) }
}

describe("Stdio under a flood of server requests", () => {
  it.scoped("stops reading stdout while the answer queue is full, reads on once it drained, answers every request", () => {
    const { layer, state } = spawner()
    return Effect.gen(function*() {
      yield* RpcPeer.make({
        server: "mem",
        transport: Stdio.transport({ command: "mem" }),
        defaultTimeoutMs: 1_000,
        onNotification: () => {},
        onRequest: () => undefined,
        maxConcurrentServerRequests: 1,
        maxQueuedRefusals: 10
      })
      // One chunk of 50 requests is taken in full; the queue being full, stdout stops.
      state.print(
        Array.from({ length: 50 }, (_, id) => JSON.stringify({ jsonrpc: "2.0", id, method: "x" })).join("\n") + "\n"
      )
      assert.deepStrictEqual(state.pauses, [true])
      while (state.pauses.length < 2) yield* Effect.yieldNow()
      assert.deepStrictEqual(state.pauses, [true, false])
      while (state.written.length < 50) yield* Effect.yieldNow()
      assert.deepStrictEqual(state.written.map((m) => m.id), Array.from({ length: 50 }, (_, id) => id))
    }).pipe(Effect.provide(layer))
  })
})
