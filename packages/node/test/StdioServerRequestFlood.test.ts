/**
 * A stdio server that floods the client with 10,000 requests (issue #32, point 1): the client
 * stops reading stdout while its answer queue is full, and every request gets its answer.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Stdio from "@mcp-effect/client/Stdio"
import * as NodeChildProcess from "@mcp-effect/node/NodeChildProcess"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const program = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "programs/floodStdio.mjs")
const BURST = 10_000

describe("a flood of server requests over stdio", () => {
  it.scopedLive("every one of 10,000 requests is answered", () =>
    Effect.gen(function*() {
      const done = yield* Deferred.make<unknown>()
      yield* ServerConnection.make(
        Stdio.config({ name: "flood", command: process.execPath, args: [program, String(BURST)] }),
        {
          clientInfo: { name: "test", version: "1" },
          protocol: "legacy",
          handlers: { roots: [{ uri: "file:///work", name: "work" }] },
          onNotification: (_server, method, params) => {
            if (method === "notifications/flood_done") Deferred.unsafeDone(done, Exit.succeed(params))
          }
        }
      ).pipe(Effect.tap((connection) => connection.connect))
      assert.deepStrictEqual(yield* Deferred.await(done), { answered: BURST })
    }).pipe(Effect.provide(NodeChildProcess.layer), Logger.withMinimumLogLevel(LogLevel.Error)))
})
