/**
 * The settings a connection logs at DEBUG as it starts: credentials masked, nothing computed
 * unless DEBUG lines are logged (issue #32, point 8).
 */
import { assert, describe, it } from "@effect/vitest"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Stdio from "@mcp-effect/client/Stdio"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

const captured = (lines: Array<string>) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ message }) => lines.push(Array.isArray(message) ? message.join(" ") : String(message)))
  )

describe("masked settings", () => {
  it("mask credentials in headers, environment and URLs, and keep the rest", () => {
    const http = StreamableHttp.config({
      name: "gh",
      url: "https://user:pw@example.com/mcp?api_key=k-123&region=eu",
      headers: { Authorization: "Bearer sk-secret", "X-Trace": "on" }
    })
    const line = http.describe!()
    for (const secret of ["sk-secret", "k-123", "user", "pw@"]) assert.notInclude(line, secret)
    assert.include(line, "region=eu")
    assert.include(line, "\"X-Trace\":\"on\"")
    assert.include(line, "\"Authorization\":\"***\"")
    const stdio = Stdio.config({
      command: "npx",
      args: ["-y", "server-github"],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_x", DB_PASSWORD: "hunter2", LOG_LEVEL: "debug" }
    })
    const text = stdio.describe!()
    for (const secret of ["ghp_x", "hunter2"]) assert.notInclude(text, secret)
    assert.include(text, "\"LOG_LEVEL\":\"debug\"")
    assert.include(text, "server-github")
  })

  it.scoped("a connection logs them at DEBUG as it starts, and computes nothing above DEBUG", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      let described = 0
      const config = {
        ...server.config({ name: "fake\u001b[2J" }),
        describe: () => {
          described++
          return "{\"headers\":{\"Authorization\":\"***\"}}"
        }
      }
      const options = { clientInfo: { name: "t", version: "1" }, onNotification: () => {} }
      const quiet: Array<string> = []
      yield* ServerConnection.make(config, options).pipe(Effect.provide(captured(quiet)))
      assert.strictEqual(described, 0)
      const lines: Array<string> = []
      yield* ServerConnection.make(config, options).pipe(
        Effect.provide(captured(lines)),
        Logger.withMinimumLogLevel(LogLevel.Debug)
      )
      assert.strictEqual(described, 1)
      const start = lines.find((line) => line.includes("connecting over memory"))
      assert.strictEqual(start, "fake\\u001b[2J: connecting over memory with {\"headers\":{\"Authorization\":\"***\"}}")
    }))
})
