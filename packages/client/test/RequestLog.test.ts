/**
 * One DEBUG line per request (issue #32, point 8): method, id, bytes out and in, milliseconds,
 * outcome, never a payload; composed only on a connection made while DEBUG lines are logged.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

const options = { clientInfo: { name: "t", version: "1" }, onNotification: () => {} }

const capture = (lines: Array<string>) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ message }) => lines.push(Array.isArray(message) ? message.join(" ") : String(message)))
  )

describe("the DEBUG line per request", () => {
  for (const era of ["legacy", "modern"] as const) {
    it.scoped(`${era}: method, id, bytes, ms and outcome, never the payload`, () => {
      const lines: Array<string> = []
      return Effect.gen(function*() {
        const server = yield* FakeServer.make({ ...Scenarios.demo, era: era === "modern" ? "dual" : "legacy" })
        const connection = yield* ServerConnection.make(server.config({ name: "fake" }), options)
        yield* connection.callTool("echo", { message: "secret-payload" })
        yield* Effect.flip(connection.request("no/such/method", {}))
        const calls = lines.filter((line) => line.startsWith("fake: tools/call "))
        assert.strictEqual(calls.length, 1)
        assert.match(calls[0]!, /^fake: tools\/call id=\d+ out=\d+ B in=\d+ B \d+ ms ok$/)
        const out = Number(/out=(\d+)/.exec(calls[0]!)![1])
        assert.isAbove(out, "secret-payload".length)
        const failed = lines.find((line) => line.startsWith("fake: no/such/method "))
        assert.match(failed!, / ServerError$/)
        assert.isFalse(lines.some((line) => line.includes("secret-payload")))
      }).pipe(Effect.provide(capture(lines)), Logger.withMinimumLogLevel(LogLevel.Debug))
    })
  }

  it.scoped("a connection made above DEBUG composes no such step: its calls keep the fiber-free path", () => {
    const lines: Array<string> = []
    return Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const quiet = yield* ServerConnection.make(server.config({ name: "quiet" }), options)
      const debug = yield* ServerConnection.make(server.config({ name: "debug" }), options).pipe(
        Logger.withMinimumLogLevel(LogLevel.Debug)
      )
      assert.isDefined(quiet.unsafeCallTool)
      assert.isUndefined(debug.unsafeCallTool)
      yield* quiet.callTool("echo", { message: "x" })
      assert.isFalse(lines.some((line) => line.startsWith("quiet: tools/call")))
    }).pipe(Effect.provide(capture(lines)))
  })
})
