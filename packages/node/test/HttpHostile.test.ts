/**
 * Streamable HTTP against servers that break the transport's rules: replies that do not answer,
 * lost sessions behind 400, legacy servers asked for 2026-07-28, GET streams refused with 400,
 * and how a 2026-07-28 request is cancelled.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  MissingResponseError,
  RequestTimeoutError,
  ServerError,
  SessionExpiredError
} from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

const options: ServerConnection.Options = { clientInfo: { name: "test", version: "1" }, onNotification: () => {} }

const legacyServer = (extra: Partial<FakeHttpServer.Options> = {}) =>
  FakeHttpServer.make({ definition: Scenarios.demo, ...extra })

const dualServer = (extra: Partial<FakeHttpServer.Options> = {}) =>
  FakeHttpServer.make({ definition: { ...Scenarios.demo, era: "dual" }, ...extra })

// Deadlines far beyond the test's own timeout: a request that waited for one would fail the test.
const connect = (
  server: FakeHttpServer.FakeHttpServer,
  extra: Partial<StreamableHttp.Options> = {},
  more: Partial<ServerConnection.Options> = {}
) =>
  ServerConnection.make(
    StreamableHttp.config({
      name: "http",
      url: server.mcpUrl,
      retryBase: "10 millis",
      readTimeout: "1 hour",
      ...extra
    }),
    { discoverTimeout: "1 hour", ...options, ...more }
  )

const posts = (server: FakeHttpServer.FakeHttpServer, method: string) =>
  Effect.map(
    server.requests,
    (all) => all.filter((r) => r.method === "POST" && (r.body as { method?: string } | undefined)?.method === method)
  )

const eventually = (check: Effect.Effect<boolean>) =>
  Effect.gen(function*() {
    while (!(yield* check)) yield* Effect.sleep("20 millis")
  })

const captureLogs = () => {
  const lines: Array<{ readonly level: string; readonly text: string }> = []
  const logger = Logger.make(({ logLevel, message }) => {
    lines.push({ level: logLevel.label, text: Array.isArray(message) ? message.join(" ") : String(message) })
  })
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
}

const quiet = Logger.withMinimumLogLevel(LogLevel.Error)

describe("a JSON reply that does not answer the request", () => {
  for (
    const [reply, expected] of [
      ["empty", "an empty application/json body"],
      ["otherId", "a response for id "],
      ["notifications", "2 notifications"]
    ] as const
  ) {
    it.scopedLive(`fails the request at once, naming what arrived (${reply})`, () =>
      Effect.gen(function*() {
        const server = yield* legacyServer({ responseMode: "json", unansweredJson: { method: "tools/list", reply } })
        const connection = yield* connect(server)
        const error = yield* Effect.flip(connection.listTools())
        assert.instanceOf(error, MissingResponseError)
        assert.include(error.message, expected)
        // Not retried: the server did answer.
        assert.strictEqual((yield* posts(server, "tools/list")).length, 1)
      }).pipe(Effect.provide(NodeMcpClient.platform), quiet))
  }

  it.scopedLive("the id the server answered for is escaped and bounded in the error", () =>
    Effect.gen(function*() {
      const id = `\u202Eexe.${"x".repeat(10_000)}\u001b[31m`
      const server = yield* legacyServer({
        responseMode: "json",
        unansweredJson: { method: "tools/list", reply: { id } }
      })
      const connection = yield* connect(server)
      const error = yield* Effect.flip(connection.listTools())
      assert.instanceOf(error, MissingResponseError)
      assert.include(error.message, "a response for id \"\\u202eexe.x")
      assert.notInclude(error.message, "\u202E")
      assert.notInclude(error.message, "\u001b")
      assert.isBelow(error.message.length, 300)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("a tools/call answered with another id fails at once and is not re-sent (2026-07-28)", () =>
    Effect.gen(function*() {
      const server = yield* dualServer({ responseMode: "json", unansweredJson: { reply: "otherId" } })
      const connection = yield* connect(server)
      assert.strictEqual(connection.negotiated()!.era, "modern")
      const error = yield* Effect.flip(connection.callTool("echo", { message: "x" }))
      assert.instanceOf(error, MissingResponseError)
      assert.include(error.message, "a response for id ")
      assert.strictEqual((yield* posts(server, "tools/call")).length, 1)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("protocol auto: a server/discover answered so means a legacy server, and initialize follows at once", () =>
    Effect.gen(function*() {
      const server = yield* legacyServer({ unansweredJson: { method: "server/discover", reply: "otherId" } })
      const connection = yield* connect(server)
      assert.strictEqual(connection.negotiated()!.era, "legacy")
      assert.strictEqual((yield* posts(server, "initialize")).length, 1)
      assert.isAbove((yield* connection.listTools()).length, 0)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))
})

describe("a lost session behind HTTP 400 (SDK 1.x servers)", () => {
  it.scopedLive("is recovered: a list is re-sent on a new session, a tool call is not; one warning", () => {
    const logs = captureLogs()
    return Effect.gen(function*() {
      const server = yield* legacyServer({ unknownSessionStatus: 400 })
      const connection = yield* connect(server)
      yield* server.expireSessions
      assert.strictEqual((yield* connection.listTools()).length, Scenarios.demo.tools!.length)
      assert.strictEqual((yield* posts(server, "initialize")).length, 2)
      yield* server.expireSessions
      const error = yield* Effect.flip(connection.callTool("echo", { message: "once" }))
      assert.instanceOf(error, SessionExpiredError)
      assert.strictEqual((yield* posts(server, "tools/call")).length, 1)
      const result = yield* connection.callTool("echo", { message: "again" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "again" }])
      assert.strictEqual((yield* posts(server, "initialize")).length, 3)
      const warnings = logs.lines.filter((line) => line.level === "WARN" && line.text.includes("requires 404"))
      assert.strictEqual(warnings.length, 1)
      assert.include(warnings[0]!.text, "No valid session ID provided")
    }).pipe(Effect.provide(NodeMcpClient.platform), Effect.provide(logs.layer))
  })

  it.scopedLive("a second such 400 on the fresh session is a ServerError", () =>
    Effect.gen(function*() {
      const server = yield* legacyServer()
      const connection = yield* connect(server)
      yield* server.setFaults({
        status4xx: { method: "tools/list", status: 400, message: "Bad Request: No valid session ID provided" }
      })
      const error = yield* Effect.flip(connection.listTools())
      assert.instanceOf(error, ServerError)
      assert.include(error.message, "session")
      assert.strictEqual((yield* posts(server, "initialize")).length, 2)
      assert.strictEqual((yield* posts(server, "tools/list")).length, 2)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("a 400 that does not mention the session stays a ServerError, on the same session", () =>
    Effect.gen(function*() {
      const server = yield* legacyServer()
      const connection = yield* connect(server)
      yield* server.setFaults({ status4xx: { method: "tools/list", status: 400, message: "Bad Request: bad cursor" } })
      assert.instanceOf(yield* Effect.flip(connection.listTools()), ServerError)
      assert.strictEqual((yield* posts(server, "initialize")).length, 1)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))
})

describe("protocol: \"modern\" against a legacy server", () => {
  const modern = (server: FakeHttpServer.FakeHttpServer, extra: Partial<StreamableHttp.Options> = {}) =>
    Effect.flip(connect(server, { retries: 0, ...extra }, { protocol: "modern", discoverTimeout: "300 millis" }))

  it.scopedLive("the error says what the server answered and which versions the client offers", () =>
    Effect.gen(function*() {
      const methodNotFound = yield* modern(yield* legacyServer())
      assert.strictEqual(methodNotFound._tag, "UnsupportedProtocolVersionError")
      assert.strictEqual(
        methodNotFound.message,
        "http does not speak protocol version 2026-07-28: server/discover was answered with error -32601 " +
          "\"Method not found\"; the client offers 2026-07-28"
      )
      const refused = yield* modern(
        yield* legacyServer({
          status4xx: { method: "server/discover", status: 400, message: "Bad Request: No valid session\u001b[31m" }
        })
      )
      assert.include(refused.message, "error -32600 \"Bad Request: No valid session\\u001b[31m\"")
      assert.notInclude(refused.message, "\u001b")
      const unavailable = yield* modern(yield* legacyServer({ status5xxTimes: 1 }))
      assert.include(unavailable.message, "answered with HTTP 503;")
      const silent = yield* modern(yield* legacyServer({ stall: { method: "server/discover" } }))
      assert.include(silent.message, "answered with silence (no answer within 300 ms);")
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))
})

describe("cancellation over Streamable HTTP", () => {
  it.scopedLive("2026-07-28: a timed-out or interrupted request closes its POST and posts nothing", () =>
    Effect.gen(function*() {
      const server = yield* dualServer({ stall: { method: "tools/call" } })
      const connection = yield* connect(server)
      assert.strictEqual(connection.negotiated()!.era, "modern")
      const timedOut = yield* Effect.flip(connection.callTool("echo", { message: "x" }, { timeout: "200 millis" }))
      assert.instanceOf(timedOut, RequestTimeoutError)
      const abandonedCalls = Effect.map(
        server.abandoned,
        (all) => all.filter((r) => (r.body as { method?: string } | undefined)?.method === "tools/call").length
      )
      yield* eventually(Effect.map(abandonedCalls, (n) => n === 1))
      const call = yield* Effect.fork(connection.callTool("echo", { message: "y" }))
      yield* eventually(Effect.map(posts(server, "tools/call"), (all) => all.length === 2))
      yield* Fiber.interrupt(call)
      yield* eventually(Effect.map(abandonedCalls, (n) => n === 2))
      // A later exchange, so a cancellation POSTed at either moment would have arrived first.
      yield* connection.listTools()
      assert.deepStrictEqual(yield* posts(server, "notifications/cancelled"), [])
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("legacy sessions still post notifications/cancelled (and close the POST)", () =>
    Effect.gen(function*() {
      const server = yield* legacyServer({ stall: { method: "tools/call" } })
      const connection = yield* connect(server)
      assert.strictEqual(connection.negotiated()!.era, "legacy")
      const timedOut = yield* Effect.flip(connection.callTool("echo", { message: "x" }, { timeout: "200 millis" }))
      assert.instanceOf(timedOut, RequestTimeoutError)
      yield* eventually(Effect.map(posts(server, "notifications/cancelled"), (all) => all.length === 1))
      const [cancelled] = yield* posts(server, "notifications/cancelled")
      const [call] = yield* posts(server, "tools/call")
      assert.strictEqual(
        (cancelled!.body as { params: { requestId: unknown } }).params.requestId,
        (call!.body as { id: unknown }).id
      )
      assert.include(yield* server.abandoned, call)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))
})

describe("the GET stream", () => {
  it.scopedLive("a GET answered 400 means no stream, and is not retried", () => {
    const logs = captureLogs()
    return Effect.gen(function*() {
      const server = yield* legacyServer({ getStream: 400 })
      const connection = yield* connect(server)
      yield* eventually(Effect.sync(() => logs.lines.some((line) => line.text.includes("no GET stream (HTTP 400)"))))
      assert.isAbove((yield* connection.listTools()).length, 0)
      const gets = (yield* server.requests).filter((r) => r.method === "GET")
      assert.strictEqual(gets.length, 1)
    }).pipe(
      Effect.provide(NodeMcpClient.platform),
      Effect.provide(logs.layer),
      Logger.withMinimumLogLevel(LogLevel.Debug)
    )
  })
})
