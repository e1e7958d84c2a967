/**
 * The memory a flood of server requests costs (issue #32, point 1): 10,000 requests over legacy
 * HTTP+SSE while the answer endpoint stalls (that every one is answered once it drains is
 * `ServerRequestFlood.test.ts`'s). In a test file of its own, so that the heap measured is this
 * flood's.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Sse from "@mcp-effect/client/Sse"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as V8 from "node:v8"
import * as Vm from "node:vm"
import { floodServer } from "./floodServer.js"

const BURST = 10_000
const MiB = 1024 * 1024

/**
 * A full collection, then the heap in use (`--expose-gc` switched on at run time if need be, on
 * first use: a runtime without V8's flags only fails the tests that use it).
 */
let gc: (() => void) | undefined
const heapUsed = () => {
  if (gc === undefined) {
    V8.setFlagsFromString("--expose-gc")
    gc = Vm.runInNewContext("gc") as () => void
  }
  gc()
  return process.memoryUsage().heapUsed
}

describe("the memory of a flood of server requests", () => {
  it.scopedLive("10,000 requests against a stalled answer endpoint: heap growth under 64 MiB [node-only: V8's gc and heap figures]", () =>
    Effect.gen(function*() {
      const flood = yield* floodServer(BURST, true)
      const before = heapUsed()
      yield* ServerConnection.make(Sse.config({ name: "flood", url: flood.url }), {
        clientInfo: { name: "test", version: "1" },
        protocol: "legacy",
        handlers: { roots: [{ uri: "file:///work", name: "work" }] },
        onNotification: () => {}
      })
      // The answer slots are taken; the client reads on until its answer queue is full, then stops.
      while (flood.answers.open < 16) yield* Effect.sleep("10 millis")
      yield* Effect.sleep("500 millis")
      const stalled = heapUsed() - before
      assert.isBelow(stalled, 64 * MiB, `heap grew by ${(stalled / MiB).toFixed(1)} MiB while stalled`)
      assert.isAtMost(flood.answers.max, 16)
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)))
})
