/**
 * The HTTP transports against fake servers on real loopback sockets, hostile ones included.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Http from "@mcp-effect/client/Http"
import type * as McpAuth from "@mcp-effect/client/McpAuth"
import * as McpClient from "@mcp-effect/client/McpClient"
import {
  AuthError,
  ConnectionError,
  RequestTimeoutError,
  ResponseTooLargeError,
  ServerError,
  SessionExpiredError,
  TransientServerError
} from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Sse from "@mcp-effect/client/Sse"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as Target from "@mcp-effect/client/Target"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import type * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

const options: ServerConnection.Options = { clientInfo: { name: "test", version: "1" }, onNotification: () => {} }

const fake = (extra: Partial<FakeHttpServer.Options> = {}) =>
  FakeHttpServer.make({ definition: Scenarios.demo, ...extra })

const streamable = (server: FakeHttpServer.FakeHttpServer, extra: Partial<StreamableHttp.Options> = {}) =>
  ServerConnection.make(
    StreamableHttp.config({ name: "http", url: server.mcpUrl, retryBase: "10 millis", ...extra }),
    options
  )

const posts = (server: FakeHttpServer.FakeHttpServer, method?: string) =>
  Effect.map(
    server.requests,
    (all) =>
      all.filter((r) =>
        r.method === "POST" && (method === undefined || (r.body as { method?: string } | undefined)?.method === method)
      )
  )

const text = (result: { readonly content: ReadonlyArray<unknown> }) => (result.content[0] as { text: string }).text

const quiet = Logger.withMinimumLogLevel(LogLevel.Error)

/** Polls until `check` holds (the test's timeout bounds the wait). */
const eventually = (check: Effect.Effect<boolean>) =>
  Effect.gen(function*() {
    while (!(yield* check)) yield* Effect.sleep("20 millis")
  })

describe("Streamable HTTP", () => {
  it.scopedLive("calls tools over SSE responses, with progress, session and protocol headers", () =>
    Effect.gen(function*() {
      const server = yield* fake()
      const connection = yield* streamable(server)
      const progress: Array<number> = []
      const result = yield* connection.callTool("progress", { steps: 3, delayMs: 1 }, {
        onProgress: (p) => progress.push(p.progress)
      })
      assert.strictEqual(text(result), "done after 3 steps")
      assert.deepStrictEqual(progress, [1, 2, 3])
      const [call] = yield* posts(server, "tools/call")
      assert.isDefined(call!.headers["mcp-session-id"])
      assert.strictEqual(call!.headers["mcp-protocol-version"], "2025-11-25")
      assert.include(call!.headers["accept"], "text/event-stream")
      assert.deepStrictEqual((yield* connection.callTool("add", { a: 1, b: 2 })).structuredContent, { sum: 3 })
    }).pipe(Effect.provide(NodeMcpClient.platform)))

  it.scopedLive(
    "a POST the server never answers is bounded by the request's timeout, and abandoned",
    () =>
      Effect.gen(function*() {
        const server = yield* fake({ stall: { method: "tools/call" } })
        const connection = yield* streamable(server)
        const error = yield* Effect.flip(connection.callTool("echo", { message: "x" }, { timeout: "300 millis" }))
        assert.instanceOf(error, RequestTimeoutError)
        // The abandoned exchange was interrupted: released later, the server finds its client gone.
        yield* Effect.sleep("300 millis")
        yield* server.releaseStalled
        yield* Effect.sleep("200 millis")
        assert.deepStrictEqual(yield* server.fake.requests("tools/call"), [])
        // The connection is still usable.
        assert.strictEqual((yield* connection.listTools()).length > 0, true)
      }).pipe(Effect.provide(NodeMcpClient.platform), quiet),
    30_000
  )

  it.scopedLive("accepts JSON answers", () =>
    Effect.gen(function*() {
      const server = yield* fake({ responseMode: "json" })
      const connection = yield* streamable(server)
      assert.strictEqual(text(yield* connection.callTool("echo", { message: "json" })), "json")
      assert.strictEqual((yield* connection.listTools()).length, Scenarios.demo.tools!.length)
    }).pipe(Effect.provide(NodeMcpClient.platform)))

  it.scopedLive("ends the session with DELETE when closed", () =>
    Effect.gen(function*() {
      const server = yield* fake()
      const scope = yield* Scope.make()
      yield* streamable(server).pipe(Scope.extend(scope))
      yield* Scope.close(scope, Exit.void)
      const deletes = (yield* server.requests).filter((r) => r.method === "DELETE")
      assert.strictEqual(deletes.length, 1)
      assert.isDefined(deletes[0]!.headers["mcp-session-id"])
    }).pipe(Effect.provide(NodeMcpClient.platform)))

  it.scopedLive("session expiry: a list is re-sent on a new session, a tool call is not", () =>
    Effect.gen(function*() {
      const server = yield* fake()
      const connection = yield* streamable(server)
      yield* server.expireSessions
      const tools = yield* connection.listTools()
      assert.strictEqual(tools.length, Scenarios.demo.tools!.length)
      assert.strictEqual((yield* posts(server, "initialize")).length, 2)
      yield* server.expireSessions
      const error = yield* Effect.flip(connection.callTool("echo", { message: "once" }))
      assert.instanceOf(error, SessionExpiredError)
      assert.strictEqual((yield* posts(server, "tools/call")).length, 1)
      assert.strictEqual(text(yield* connection.callTool("echo", { message: "again" })), "again")
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("a GET stream answered 405 means no stream, not an error", () =>
    Effect.gen(function*() {
      const server = yield* fake({ getStream: 405 })
      const connection = yield* streamable(server)
      assert.strictEqual(text(yield* connection.callTool("echo", { message: "ok" })), "ok")
      yield* Effect.sleep("300 millis")
      const gets = (yield* server.requests).filter((r) => r.method === "GET")
      assert.strictEqual(gets.length, 1)
    }).pipe(Effect.provide(NodeMcpClient.platform)))

  it.scopedLive("notifications on the GET stream reach listeners and invalidate caches", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const server = yield* fake()
      const connection = yield* ServerConnection.make(
        StreamableHttp.config({ name: "http", url: server.mcpUrl }),
        { ...options, onNotification: (_, method) => seen.push(method) }
      )
      yield* connection.listTools()
      yield* Effect.sleep("200 millis")
      yield* server.fake.setTools([])
      yield* Effect.sleep("300 millis")
      assert.include(seen, "notifications/tools/list_changed")
      assert.deepStrictEqual(yield* connection.listTools(), [])
    }).pipe(Effect.provide(NodeMcpClient.platform)))

  it.scopedLive("resumes a cut response stream with GET + Last-Event-ID [not-on-bun: Bun's fetch drops the bytes that arrived before a reset]", () =>
    Effect.gen(function*() {
      const server = yield* fake({ cutAfterNotifications: { method: "tools/call", times: 1 } })
      const connection = yield* streamable(server)
      const progress: Array<number> = []
      const result = yield* connection.callTool("progress", { steps: 2, delayMs: 1 }, {
        onProgress: (p) => progress.push(p.progress)
      })
      assert.strictEqual(text(result), "done after 2 steps")
      assert.deepStrictEqual(progress, [1, 2])
      const resumed = (yield* server.requests).filter((r) =>
        r.method === "GET" && r.headers["last-event-id"] !== undefined
      )
      assert.isAbove(resumed.length, 0)
      assert.strictEqual((yield* posts(server, "tools/call")).length, 1)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("a result followed by a dead socket is returned, and the tool is not called again [not-on-bun: Bun's fetch drops the bytes that arrived before a reset]", () =>
    Effect.gen(function*() {
      const server = yield* fake({ deadSocketAfterResult: { method: "tools/call", times: 1 } })
      const connection = yield* streamable(server)
      assert.strictEqual(text(yield* connection.callTool("echo", { message: "kept" })), "kept")
      assert.strictEqual((yield* posts(server, "tools/call")).length, 1)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("retries HTTP 5xx for a list, never for a tool call", () =>
    Effect.gen(function*() {
      const server = yield* fake()
      const connection = yield* streamable(server)
      yield* server.setFaults({ status5xxTimes: 2 })
      assert.strictEqual((yield* connection.listTools()).length, Scenarios.demo.tools!.length)
      assert.strictEqual((yield* posts(server, "tools/list")).length, 3)
      yield* server.setFaults({ status5xxTimes: 1 })
      const error = yield* Effect.flip(connection.callTool("echo", { message: "x" }))
      assert.instanceOf(error, TransientServerError)
      assert.strictEqual(error.status, 503)
      assert.strictEqual((yield* posts(server, "tools/call")).length, 1)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("never retries a 4xx, and keeps the JSON-RPC error's code and data", () =>
    Effect.gen(function*() {
      const server = yield* fake()
      const connection = yield* streamable(server)
      yield* server.setFaults({ status4xx: { method: "tools/list", message: "no", data: { why: "test" } } })
      const error = yield* Effect.flip(connection.listTools())
      assert.instanceOf(error, ServerError)
      assert.strictEqual(error.code, -32600)
      assert.deepStrictEqual(error.data, { why: "test" })
      assert.strictEqual((yield* posts(server, "tools/list")).length, 1)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("abandons a gzip bomb with ResponseTooLargeError and bounded memory", () =>
    Effect.gen(function*() {
      const server = yield* fake({ gzipBomb: { method: "tools/call", bytes: 1024 * 1024 * 1024 } })
      const connection = yield* streamable(server, { maxDecompressedBodyBytes: 8 * 1024 * 1024 })
      const before = process.memoryUsage().rss
      const error = yield* Effect.flip(connection.callTool("echo", { message: "boom" }))
      assert.instanceOf(error, ResponseTooLargeError)
      assert.isBelow(process.memoryUsage().rss - before, 256 * 1024 * 1024)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("an unterminated SSE event costs bounded memory and fails the request", () =>
    Effect.gen(function*() {
      const server = yield* fake({ unterminatedEvent: { method: "tools/call", bytes: 64 * 1024 * 1024 } })
      const connection = yield* streamable(server, { maxDecompressedBodyBytes: 4 * 1024 * 1024 })
      const before = process.memoryUsage().rss
      const error = yield* Effect.flip(connection.callTool("echo", { message: "x" }, { timeout: "20 seconds" }))
      assert.oneOf(error._tag, ["ResponseTooLargeError", "ResponseStreamClosedError"])
      assert.isBelow(process.memoryUsage().rss - before, 256 * 1024 * 1024)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("retry: 0 is floored, so the GET stream does not reconnect in a hot loop", () =>
    Effect.gen(function*() {
      const server = yield* fake({ retryZero: true })
      yield* streamable(server, { sseRetryFloor: "200 millis" })
      yield* Effect.sleep("1 second")
      const gets = (yield* server.requests).filter((r) => r.method === "GET")
      assert.isAbove(gets.length, 1)
      assert.isAtMost(gets.length, 7)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("an over-long or non-printable event id is never echoed in Last-Event-ID", () =>
    Effect.gen(function*() {
      const server = yield* fake({ longEventId: true, retryZero: true })
      const connection = yield* streamable(server)
      yield* connection.callTool("echo", { message: "x" })
      yield* Effect.sleep("500 millis")
      const echoed = (yield* server.requests).filter((r) => r.headers["last-event-id"] !== undefined)
      assert.deepStrictEqual(echoed.filter((r) => r.headers["last-event-id"]!.length > 256), [])
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("a cross-origin redirect does not carry Authorization or configured headers", () =>
    Effect.gen(function*() {
      const server = yield* fake({ redirect: { method: "tools/call", times: 1 } })
      const connection = yield* streamable(server, {
        headers: { authorization: "Bearer secret", "x-api-key": "k" }
      })
      const result = yield* Effect.either(connection.callTool("echo", { message: "moved" }))
      const foreign = (yield* server.requests).filter((r) => r.origin === "foreign")
      assert.isAbove(foreign.length, 0)
      for (const request of foreign) {
        assert.isUndefined(request.headers["authorization"])
        assert.isUndefined(request.headers["x-api-key"])
      }
      // On its own origin the configured credentials are sent.
      const [initialize] = yield* posts(server, "initialize")
      assert.strictEqual(initialize!.headers["authorization"], "Bearer secret")
      // The redirected call lost its session header too, so the other origin refused it.
      assert.strictEqual(result._tag, "Left")
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))
})

describe("legacy HTTP+SSE", () => {
  it.scopedLive("connects through the endpoint event and carries calls and progress", () =>
    Effect.gen(function*() {
      const server = yield* fake()
      const connection = yield* ServerConnection.make(Sse.config({ name: "sse", url: server.sseUrl }), options)
      const progress: Array<number> = []
      const result = yield* connection.callTool("progress", { steps: 2, delayMs: 1 }, {
        onProgress: (p) => progress.push(p.progress)
      })
      assert.strictEqual(text(result), "done after 2 steps")
      assert.deepStrictEqual(progress, [1, 2])
      assert.strictEqual(connection.kind, "sse")
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("refuses an endpoint on another origin", () =>
    Effect.gen(function*() {
      const server = yield* fake({ offOriginEndpoint: true })
      const error = yield* Effect.flip(
        ServerConnection.make(
          Sse.config({ name: "sse", url: server.sseUrl, headers: { authorization: "Bearer s" } }),
          options
        )
      )
      assert.instanceOf(error, ConnectionError)
      assert.include(error.message, "another origin")
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))
})

describe("plain HTTP and detection", () => {
  it.scopedLive("plain HTTP works end to end", () =>
    Effect.gen(function*() {
      const server = yield* fake()
      const connection = yield* ServerConnection.make(
        Http.config({ name: "plain", baseUrl: server.url, endpoint: "/rpc" }),
        options
      )
      assert.strictEqual(text(yield* connection.callTool("echo", { message: "plain" })), "plain")
      assert.strictEqual((yield* connection.readResource("demo://readme")).contents.length, 1)
      const gets = (yield* server.requests).filter((r) => r.method === "GET")
      assert.strictEqual(gets.length, 0)
    }).pipe(Effect.provide(NodeMcpClient.platform)))

  it.scopedLive("auto-detection picks Streamable HTTP for another URL that speaks it", () =>
    Effect.gen(function*() {
      const server = yield* fake()
      const config = yield* Target.toConfig(`${server.url}/rpc`, { name: "auto" })
      assert.deepStrictEqual(config.fallbacks?.map((f) => f.kind), ["sse", "http"])
      const client = yield* McpClient.make({ servers: [config] })
      assert.strictEqual(client.servers[0]!.kind, "streamable_http")
      assert.strictEqual(text(yield* client.callTool("echo", { message: "detected" })), "detected")
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("a failed transport falls back to the next one, which is then kept", () =>
    Effect.gen(function*() {
      const server = yield* fake()
      // Streamable HTTP against the legacy SSE endpoint fails; SSE is tried next.
      const config = {
        ...StreamableHttp.config({ name: "auto", url: server.sseUrl, retries: 0 }),
        fallbacks: [Sse.config({ name: "auto", url: server.sseUrl })]
      }
      const client = yield* McpClient.make({ servers: [config] })
      assert.strictEqual(client.servers[0]!.kind, "sse")
      assert.strictEqual(text(yield* client.callTool("echo", { message: "fell back" })), "fell back")
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))
})

describe("Streamable HTTP, 2026-07-28", () => {
  const dual = (extra: Partial<FakeHttpServer.Options> = {}) =>
    FakeHttpServer.make({ definition: { ...Scenarios.demo, era: "dual" }, ...extra })

  it.scopedLive("sends the modern headers and no session, and opens no GET stream", () =>
    Effect.gen(function*() {
      const server = yield* dual()
      const connection = yield* streamable(server, { headers: { "Mcp-Param-Region": "forged", "x-keep": "1" } })
      assert.strictEqual(connection.negotiated()!.era, "modern")
      yield* connection.callTool("echo", { message: "héllo" })
      const [call] = yield* posts(server, "tools/call")
      assert.strictEqual(call!.headers["mcp-protocol-version"], "2026-07-28")
      assert.strictEqual(call!.headers["mcp-method"], "tools/call")
      assert.strictEqual(call!.headers["mcp-name"], "echo")
      assert.isUndefined(call!.headers["mcp-session-id"])
      assert.isUndefined(call!.headers["mcp-param-region"])
      assert.strictEqual(call!.headers["x-keep"], "1")
      const gets = (yield* server.requests).filter((r) => r.method === "GET")
      assert.strictEqual(gets.length, 0)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("a broken response stream is re-issued once with a new id, a second break fails", () =>
    Effect.gen(function*() {
      const server = yield* dual({ cutAfterNotifications: { method: "tools/call", times: 1 } })
      const connection = yield* streamable(server)
      const result = yield* connection.callTool("progress", { steps: 2, delayMs: 1 })
      assert.strictEqual(text(result), "done after 2 steps")
      const calls = yield* posts(server, "tools/call")
      assert.strictEqual(calls.length, 2)
      assert.notStrictEqual((calls[0]!.body as { id: unknown }).id, (calls[1]!.body as { id: unknown }).id)
      yield* server.setFaults({ cutAfterNotifications: { method: "tools/call", times: 2 } })
      const error = yield* Effect.flip(connection.callTool("progress", { steps: 2, delayMs: 1 }))
      assert.strictEqual(error._tag, "ResponseStreamClosedError")
      const resumes = (yield* server.requests).filter((r) => r.headers["last-event-id"] !== undefined)
      assert.strictEqual(resumes.length, 0)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))
})

describe("the result cache on 2026-07-28 HTTP", () => {
  const cachingServer = (extra: Partial<FakeServer.Definition> = {}, faults: Partial<FakeHttpServer.Options> = {}) =>
    FakeHttpServer.make({ definition: { ...Scenarios.demo, era: "dual", ttlMs: 60_000, ...extra }, ...faults })

  it.scopedLive("a private entry is never served under another token", () =>
    Effect.gen(function*() {
      const server = yield* cachingServer({ cacheScope: "private" })
      let token = "alice"
      const connection = yield* streamable(server, { headers: () => ({ authorization: `Bearer ${token}` }) })
      yield* connection.listTools()
      yield* connection.listTools()
      assert.strictEqual((yield* posts(server, "tools/list")).length, 1)
      token = "bob"
      yield* connection.listTools()
      assert.strictEqual((yield* posts(server, "tools/list")).length, 2)
      const info = yield* connection.cacheInfo("tools")
      assert.deepStrictEqual([info?.ttlMs, info?.cacheScope, info?.fresh], [60_000, "private", true])
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("a public entry is shared across tokens, and reads are cached by URI", () =>
    Effect.gen(function*() {
      const server = yield* cachingServer()
      let token = "alice"
      const connection = yield* streamable(server, { headers: () => ({ authorization: `Bearer ${token}` }) })
      yield* connection.listTools()
      token = "bob"
      yield* connection.listTools()
      assert.strictEqual((yield* posts(server, "tools/list")).length, 1)
      yield* connection.readResource("demo://readme")
      yield* connection.readResource("demo://readme")
      assert.strictEqual((yield* posts(server, "resources/read")).length, 1)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("a customised HttpClient turns reuse off", () =>
    Effect.gen(function*() {
      const server = yield* cachingServer()
      const connection = yield* streamable(server, { httpClient: (client) => client })
      yield* connection.listTools()
      yield* connection.listTools()
      assert.strictEqual((yield* posts(server, "tools/list")).length, 2)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("a stale copy is served when the re-fetch fails transiently", () =>
    Effect.gen(function*() {
      const server = yield* cachingServer({ ttlMs: 1 })
      const connection = yield* streamable(server, { retries: 0 })
      const first = yield* connection.listTools()
      yield* Effect.sleep("10 millis")
      yield* server.setFaults({ status5xxTimes: 1 })
      const stale = yield* connection.listTools()
      assert.deepStrictEqual(stale, first)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))
})

describe("header mismatch (-32020)", () => {
  it.scopedLive("re-fetches tools/list and retries once, then fails with HeaderMismatchError", () =>
    Effect.gen(function*() {
      const mismatch = (times: number): FakeServer.Fault => ({
        method: "tools/call",
        action: "error",
        code: -32020,
        message: "Header mismatch",
        times
      })
      const server = yield* FakeHttpServer.make({
        definition: { ...Scenarios.demo, era: "dual", faults: [mismatch(1)] }
      })
      const connection = yield* streamable(server)
      yield* connection.listTools()
      assert.strictEqual(text(yield* connection.callTool("echo", { message: "again" })), "again")
      assert.strictEqual((yield* posts(server, "tools/list")).length, 2)
      assert.strictEqual((yield* posts(server, "tools/call")).length, 2)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("a second mismatch is a HeaderMismatchError", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({
        definition: {
          ...Scenarios.demo,
          era: "dual",
          faults: [{ method: "tools/call", action: "error", code: -32020, message: "Header mismatch", times: 2 }]
        }
      })
      const connection = yield* streamable(server)
      const error = yield* Effect.flip(connection.callTool("echo", { message: "x" }))
      assert.strictEqual(error._tag, "HeaderMismatchError")
      assert.strictEqual((yield* posts(server, "tools/call")).length, 2)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))
})

describe("subscriptions over Streamable HTTP (2026-07-28)", () => {
  const listening = (extra: Partial<FakeHttpServer.Options> = {}) =>
    FakeHttpServer.make({ definition: { ...Scenarios.demo, era: "dual", subscriptions: true }, ...extra })

  it.scopedLive("each subscription is its own POST stream carrying its notifications", () =>
    Effect.gen(function*() {
      const server = yield* listening()
      const connection = yield* streamable(server)
      const subscription = yield* connection.listen({ toolsListChanged: true })
      assert.isTrue(subscription.isActive())
      const listen = (yield* posts(server, "subscriptions/listen"))[0]!
      assert.strictEqual(listen.headers["mcp-method"], "subscriptions/listen")
      yield* server.fake.setTools([])
      const [first] = Chunk.toReadonlyArray(yield* Stream.runCollect(Stream.take(subscription.notifications, 1)))
      assert.strictEqual(first!.method, "notifications/tools/list_changed")
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  it.scopedLive("a 4xx answer to the listen POST ends the subscription request", () =>
    Effect.gen(function*() {
      const server = yield* listening({ status4xx: { method: "subscriptions/listen", status: 403 } })
      const connection = yield* streamable(server)
      const error = yield* Effect.flip(connection.listen({ toolsListChanged: true }, { ackTimeout: "5 seconds" }))
      assert.instanceOf(error, AuthError)
      assert.strictEqual((yield* posts(server, "subscriptions/listen")).length, 1)
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))

  /** A subscription acknowledged long enough ago that a drop is not a crash loop. */
  const established = (server: FakeHttpServer.FakeHttpServer, extra: Partial<StreamableHttp.Options> = {}) =>
    Effect.gen(function*() {
      const connection = yield* streamable(server, extra)
      const subscription = yield* connection.listen({ toolsListChanged: true }, { ackTimeout: "1 second" })
      yield* server.fake.setTools([])
      const [first] = Chunk.toReadonlyArray(yield* Stream.runCollect(Stream.take(subscription.notifications, 1)))
      assert.strictEqual(first!.method, "notifications/tools/list_changed")
      yield* Effect.sleep("1100 millis")
      return { connection, subscription }
    })
  const listenPosts = (server: FakeHttpServer.FakeHttpServer) => posts(server, "subscriptions/listen")
  const listenPostCount = (server: FakeHttpServer.FakeHttpServer, n: number) =>
    Effect.map(listenPosts(server), (all) => all.length >= n)
  const nextNotification = (
    subscription: { readonly notifications: Stream.Stream<{ readonly method: string }, unknown> }
  ) =>
    Effect.map(
      Stream.runCollect(Stream.take(subscription.notifications, 1)),
      (c) => Chunk.toReadonlyArray(c)[0]!.method
    )

  it.scopedLive(
    "a dropped listen stream is re-opened, re-acknowledged and keeps delivering; inactive while it waits",
    () =>
      Effect.gen(function*() {
        const server = yield* listening()
        const { subscription } = yield* established(server)
        yield* server.setFaults({ stall: { method: "subscriptions/listen" } })
        yield* server.fake.setTools([])
        yield* server.cutPostStreams("subscriptions/listen")
        // The re-open is held by the server: the subscription waits, inactive.
        yield* eventually(listenPostCount(server, 2))
        assert.isFalse(subscription.isActive())
        yield* server.releaseStalled
        yield* eventually(Effect.sync(() => subscription.isActive()))
        const [first, second] = yield* listenPosts(server)
        assert.notStrictEqual((first!.body as { id: unknown }).id, (second!.body as { id: unknown }).id)
        assert.deepStrictEqual((second!.body as { params: { notifications: unknown } }).params.notifications, {
          toolsListChanged: true
        })
        yield* server.fake.setTools([])
        assert.strictEqual(yield* nextNotification(subscription), "notifications/tools/list_changed")
        // Past the re-open's ackTimeout, it stays up.
        yield* Effect.sleep("1200 millis")
        assert.isTrue(subscription.isActive())
        yield* server.fake.setTools([])
        assert.strictEqual(yield* nextNotification(subscription), "notifications/tools/list_changed")
        assert.strictEqual((yield* listenPosts(server)).length, 2)
      }).pipe(Effect.provide(NodeMcpClient.platform), quiet),
    30_000
  )

  it.scopedLive("a 503 answer to the first listen POST is re-opened, not ended", () =>
    Effect.gen(function*() {
      const server = yield* listening()
      const connection = yield* streamable(server, { retries: 0 })
      yield* server.setFaults({ status5xxTimes: 1 })
      const subscription = yield* connection.listen({ toolsListChanged: true }, { ackTimeout: "10 seconds" })
      assert.isTrue(subscription.isActive())
      assert.strictEqual((yield* listenPosts(server)).length, 2)
      yield* server.fake.setTools([])
      assert.strictEqual(yield* nextNotification(subscription), "notifications/tools/list_changed")
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet), 30_000)

  it.scopedLive(
    "503 answers to a re-opened listen POST are re-opened again, never ended",
    () =>
      Effect.gen(function*() {
        const server = yield* listening()
        const { subscription } = yield* established(server, { retries: 0 })
        yield* server.setFaults({ status5xxTimes: 2 })
        yield* server.cutPostStreams("subscriptions/listen")
        yield* eventually(
          Effect.sync(() => subscription.isActive()).pipe(
            Effect.zipWith(listenPostCount(server, 4), (active, posted) => active && posted)
          )
        )
        // Each re-open is watched for its own acknowledgement: past ackTimeout, it stays up.
        yield* Effect.sleep("1200 millis")
        assert.isTrue(subscription.isActive())
        yield* server.fake.setTools([])
        assert.strictEqual(yield* nextNotification(subscription), "notifications/tools/list_changed")
        assert.strictEqual((yield* listenPosts(server)).length, 4)
      }).pipe(Effect.provide(NodeMcpClient.platform), quiet),
    30_000
  )

  it.scopedLive(
    "a 403 answer to a re-opened listen POST ends the subscription with AuthError",
    () =>
      Effect.gen(function*() {
        const server = yield* listening()
        const { subscription } = yield* established(server)
        yield* server.setFaults({ status4xx: { method: "subscriptions/listen", status: 403 } })
        yield* server.cutPostStreams("subscriptions/listen")
        const ended = yield* Effect.either(Stream.runDrain(subscription.notifications))
        assert.strictEqual(ended._tag, "Left")
        assert.instanceOf((ended as { left: unknown }).left, AuthError)
        assert.isFalse(subscription.isActive())
        yield* Effect.sleep("600 millis")
        assert.strictEqual((yield* listenPosts(server)).length, 2)
      }).pipe(Effect.provide(NodeMcpClient.platform), quiet),
    30_000
  )

  it.scopedLive(
    "an auth challenge the auth service refuses ends a re-opened subscription",
    () =>
      Effect.gen(function*() {
        const challenges: Array<McpAuth.Challenge> = []
        const auth: McpAuth.McpAuth = {
          headers: () => Effect.succeed({ authorization: "Bearer t" }),
          challenge: (challenge) => Effect.sync(() => (challenges.push(challenge), false))
        }
        const server = yield* listening()
        const { subscription } = yield* established(server, { auth })
        yield* server.setFaults({ status4xx: { method: "subscriptions/listen", status: 401 } })
        yield* server.cutPostStreams("subscriptions/listen")
        const ended = yield* Effect.either(Stream.runDrain(subscription.notifications))
        assert.instanceOf((ended as { left: unknown }).left, AuthError)
        assert.deepStrictEqual(challenges.map((c) => c.status), [401])
        assert.strictEqual((yield* listenPosts(server)).length, 2)
      }).pipe(Effect.provide(NodeMcpClient.platform), quiet),
    30_000
  )

  it.scopedLive("a subscription closed while its re-open waits sends no listen POST", () =>
    Effect.gen(function*() {
      const server = yield* listening()
      const { subscription } = yield* established(server)
      yield* server.cutPostStreams("subscriptions/listen")
      yield* eventually(Effect.sync(() => !subscription.isActive()))
      yield* subscription.close
      yield* Effect.sleep("600 millis")
      assert.strictEqual((yield* listenPosts(server)).length, 1)
      assert.strictEqual((yield* Effect.either(Stream.runDrain(subscription.notifications)))._tag, "Right")
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet), 30_000)

  it.scopedLive(
    "a subscription closed before the server took its listen POST never reaches the server",
    () =>
      Effect.gen(function*() {
        const server = yield* listening({ stall: { method: "subscriptions/listen" } })
        const connection = yield* streamable(server)
        const scope = yield* Scope.make()
        const opening = yield* Effect.fork(
          connection.listen({ toolsListChanged: true }, { ackTimeout: Duration.infinity }).pipe(Scope.extend(scope))
        )
        yield* eventually(listenPostCount(server, 1))
        yield* Scope.close(scope, Exit.void)
        const error = yield* Effect.flip(Fiber.join(opening))
        assert.instanceOf(error, ConnectionError)
        yield* Effect.sleep("200 millis")
        yield* server.releaseStalled
        yield* Effect.sleep("200 millis")
        assert.deepStrictEqual(yield* server.fake.requests("subscriptions/listen"), [])
      }).pipe(Effect.provide(NodeMcpClient.platform), quiet),
    30_000
  )

  it.scopedLive(
    "a listen whose connection is closed while its POST is unanswered fails with ConnectionError",
    () =>
      Effect.gen(function*() {
        const server = yield* listening({ stall: { method: "subscriptions/listen" } })
        const connectionScope = yield* Scope.make()
        const connection = yield* streamable(server).pipe(Scope.extend(connectionScope))
        const opening = yield* Effect.fork(
          connection.listen({ toolsListChanged: true }, { ackTimeout: Duration.infinity })
        )
        yield* eventually(listenPostCount(server, 1))
        yield* Scope.close(connectionScope, Exit.void)
        const error = yield* Effect.flip(Fiber.join(opening))
        assert.instanceOf(error, ConnectionError)
        assert.strictEqual((yield* listenPosts(server)).length, 1)
      }).pipe(Effect.provide(NodeMcpClient.platform), quiet),
    30_000
  )

  it.scopedLive("closing the subscription closes its stream", () =>
    Effect.gen(function*() {
      const server = yield* listening()
      const connection = yield* streamable(server)
      const scope = yield* Scope.make()
      const subscription = yield* connection.listen({ toolsListChanged: true }).pipe(Scope.extend(scope))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(subscription.isActive())
      const ended = yield* Effect.either(Stream.runDrain(subscription.notifications))
      assert.strictEqual(ended._tag, "Right")
    }).pipe(Effect.provide(NodeMcpClient.platform), quiet))
})
