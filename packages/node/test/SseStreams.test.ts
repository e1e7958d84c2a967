/**
 * Long-lived SSE streams over real loopback sockets: the caps apply per event, never to a stream's
 * lifetime, and one oversized event is skipped without losing the stream (issue #14, items 1–2).
 */
import { assert, describe, it } from "@effect/vitest"
import { ResponseTooLargeError } from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Sse from "@mcp-effect/client/Sse"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import { tool } from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as NodeHttp from "node:http"
import type * as Net from "node:net"

const KiB = 1024
const MiB = 1024 * KiB

const UPDATED = "notifications/resources/updated"
const HUGE_METHOD = "m".repeat(4 * MiB)

const definition = {
  ...Scenarios.demo,
  tools: [
    ...Scenarios.demo.tools!,
    // A valid notification, a 4 MiB method name, another valid one, then the result.
    tool("noisy", (_, context) =>
      Effect.gen(function*() {
        yield* context.notify(UPDATED, { uri: "x://before" })
        yield* context.notify(HUGE_METHOD, {})
        yield* context.notify(UPDATED, { uri: "x://after" })
        return "ok"
      }))
  ]
}

type Kind = "streamable" | "legacy"

/** A connection that records the URIs of the resource updates it receives and what it logs. */
const connect = (kind: Kind, options: { readonly gzip: boolean; readonly cap: number }) =>
  Effect.gen(function*() {
    const server = yield* FakeHttpServer.make({ definition, gzip: options.gzip })
    const uris: Array<string> = []
    const methods: Array<string> = []
    const common = { name: "http", retryBase: "10 millis", maxDecompressedBodyBytes: options.cap } as const
    const connection = yield* ServerConnection.make(
      kind === "streamable"
        ? StreamableHttp.config({ ...common, url: server.mcpUrl })
        : Sse.config({ ...common, url: server.sseUrl }),
      {
        clientInfo: { name: "test", version: "1" },
        onNotification: (_, method, params) => {
          methods.push(method.slice(0, 64))
          if (method === UPDATED) uris.push(String(params?.uri))
        }
      }
    )
    // The server→client stream is open once a notification sent now arrives.
    yield* server.notify(UPDATED, { uri: "x://probe" })
    yield* until(() => uris.includes("x://probe"))
    uris.length = 0
    const gets = Effect.map(server.requests, (all) => all.filter((r) => r.method === "GET").length)
    return { server, connection, uris, methods, gets }
  })

/** Polls until `check` holds; fails after 10 seconds. */
const until = (check: () => boolean) =>
  Effect.gen(function*() {
    while (!check()) yield* Effect.sleep("10 millis")
  }).pipe(Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the condition never held") }))

const logged = (logs: Array<string>) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ message }) => logs.push(Array.isArray(message) ? message.join(" ") : String(message)))
  )

describe("SSE streams", () => {
  for (const kind of ["streamable", "legacy"] as const) {
    for (const gzip of [false, true]) {
      const variant = `${kind === "streamable" ? "the GET stream" : "the legacy stream"}${gzip ? ", gzip'd" : ""}`

      it.scopedLive(
        `${variant}: 4 MiB in 16 KiB events under a 256 KiB cap all arrive, the stream stays up`,
        () =>
          Effect.gen(function*() {
            const { connection, gets, server, uris } = yield* connect(kind, { gzip, cap: 256 * KiB })
            const pad = "p".repeat(4000)
            for (let i = 0; i < 1024; i++) yield* server.notify(UPDATED, { uri: `x://${i}`, pad })
            yield* until(() => uris.length === 1024)
            assert.deepStrictEqual(uris, Array.from({ length: 1024 }, (_, i) => `x://${i}`))
            // Still the same stream: a later notification arrives on it, and it was never re-opened.
            yield* server.notify(UPDATED, { uri: "x://later" })
            yield* until(() => uris.length === 1025)
            assert.strictEqual(yield* gets, 1)
            assert.strictEqual((yield* connection.callTool("echo", { message: "still" })).isError, undefined)
          }).pipe(Effect.provide(NodeMcpClient.platform)),
        30_000
      )

      it.scopedLive(`${variant}: a 4 MiB method name between valid notifications is skipped, the rest arrive`, () => {
        const logs: Array<string> = []
        return Effect.gen(function*() {
          const { gets, methods, server, uris } = yield* connect(kind, { gzip, cap: MiB })
          yield* server.notify(UPDATED, { uri: "x://1" })
          yield* server.notify(HUGE_METHOD, {})
          yield* server.notify(UPDATED, { uri: "x://2" })
          yield* until(() => uris.length === 2)
          assert.deepStrictEqual(uris, ["x://1", "x://2"])
          assert.isFalse(methods.some((m) => m.startsWith("mmm")))
          assert.strictEqual(yield* gets, 1)
          const warnings = logs.filter((line) => line.includes("skipped an event over the 1048576-byte cap"))
          assert.strictEqual(warnings.length, 1)
          assert.notInclude(warnings[0], "mmmm")
        }).pipe(Effect.provide(NodeMcpClient.platform), Effect.provide(logged(logs)))
      }, 30_000)
    }
  }

  for (const gzip of [false, true]) {
    it.scopedLive(
      `a POST reply: an oversized notification fails the request at once, the connection goes on${
        gzip ? ", gzip'd" : ""
      }`,
      () =>
        Effect.gen(function*() {
          const { connection, methods, uris } = yield* connect("streamable", { gzip, cap: MiB })
          const error = yield* Effect.flip(connection.callTool("noisy", {}))
          assert.instanceOf(error, ResponseTooLargeError)
          assert.deepStrictEqual(uris, ["x://before"])
          assert.isFalse(methods.some((m) => m.startsWith("mmm")))
          assert.deepStrictEqual((yield* connection.callTool("echo", { message: "next" })).content, [{
            type: "text",
            text: "next"
          }])
        }).pipe(Effect.provide(NodeMcpClient.platform)),
      30_000
    )

    it.scopedLive(
      `a POST reply whose response is over the event cap fails with ResponseTooLargeError${gzip ? ", gzip'd" : ""}`,
      () =>
        Effect.gen(function*() {
          const { connection } = yield* connect("streamable", { gzip, cap: MiB })
          const error = yield* Effect.flip(connection.callTool("blob", { bytes: 2 * MiB }))
          assert.instanceOf(error, ResponseTooLargeError)
          assert.strictEqual(error.limit, MiB)
          assert.deepStrictEqual((yield* connection.callTool("echo", { message: "next" })).content, [{
            type: "text",
            text: "next"
          }])
        }).pipe(Effect.provide(NodeMcpClient.platform)),
      30_000
    )
  }

  it.scopedLive(
    "a 2026-07-28 listen stream: 4 MiB of small events and a 4 MiB method name under a 256 KiB cap, it stays up",
    () =>
      Effect.gen(function*() {
        const server = yield* FakeHttpServer.make({
          definition: { ...definition, era: "dual", subscriptions: true }
        })
        const seen: Array<number> = []
        const connection = yield* ServerConnection.make(
          StreamableHttp.config({ name: "http", url: server.mcpUrl, maxDecompressedBodyBytes: 256 * KiB }),
          {
            clientInfo: { name: "test", version: "1" },
            onNotification: (_, method, params) =>
              method === "notifications/tools/list_changed" && seen.push(Number(params?.n))
          }
        )
        const subscription = yield* connection.listen({ toolsListChanged: true })
        const listens = Effect.map(server.requests, (all) =>
          all.filter((r) => (r.body as { method?: string } | undefined)?.method === "subscriptions/listen"))
        const listenId = ((yield* listens)[0]!.body as { id: number }).id
        // Notifications carrying the subscription's id go on its own stream.
        const onStream = (n: number, pad = "") => ({
          _meta: { "io.modelcontextprotocol/subscriptionId": listenId },
          n,
          pad
        })
        const pad = "p".repeat(16 * KiB)
        for (let n = 0; n < 128; n++) {
          yield* server.notify("notifications/tools/list_changed", onStream(n, pad))
        }
        yield* server.notify(HUGE_METHOD, onStream(-1))
        for (let n = 128; n < 256; n++) {
          yield* server.notify("notifications/tools/list_changed", onStream(n, pad))
        }
        yield* until(() =>
          seen.length === 256
        )
        assert.deepStrictEqual(seen, Array.from({ length: 256 }, (_, n) => n))
        assert.isTrue(subscription.isActive())
        assert.strictEqual((yield* listens).length, 1)
      }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)),
    30_000
  )

  it.scopedLive(
    "a POST reply of `data: ` and an endless line fails at once, the client reads past the cap by a chunk",
    () =>
      Effect.gen(function*() {
        const cap = MiB
        let written = 0
        let endlessClosed = false
        const url = yield* rawServer((req, res) => {
          if (req.method !== "POST") return void res.writeHead(405).end()
          let body = ""
          req.on("data", (chunk) => (body += chunk))
          req.on("end", () => {
            const message = JSON.parse(body)
            if (message.id === undefined) return void res.writeHead(202).end()
            if (message.method === "tools/call") {
              res.writeHead(200, { "content-type": "text/event-stream" })
              res.on("close", () => (endlessClosed = true))
              res.write(`data: {"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"text":"`)
              // Written as fast as the client reads, for ever.
              const filler = "x".repeat(64 * KiB)
              const more = () => {
                while (!res.destroyed && res.write(filler)) written += filler.length
                if (!res.destroyed) written += filler.length
              }
              res.on("drain", more)
              return more()
            }
            const answer = message.method === "initialize"
              ? {
                result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "raw", version: "1" } }
              }
              : message.method === "tools/list"
              ? { result: { tools: [{ name: "endless", inputSchema: { type: "object" } }] } }
              : { error: { code: -32601, message: "Method not found" } }
            res.writeHead(200, { "content-type": "application/json" })
            res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...answer }))
          })
        })
        const connection = yield* ServerConnection.make(
          StreamableHttp.config({ name: "raw", url, maxDecompressedBodyBytes: cap }),
          { clientInfo: { name: "test", version: "1" }, onNotification: () => {} }
        )
        const error = yield* Effect.flip(connection.callTool("endless", {}))
        assert.instanceOf(error, ResponseTooLargeError)
        yield* until(() => endlessClosed)
        // What the server got written: what the client read (the cap and a chunk) plus what the
        // sockets' buffers held when it stopped; the old skip rule read 64 MiB before failing.
        assert.isBelow(written, 16 * MiB)
      }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)),
    30_000
  )

  it.scopedLive("a GET stream sending only garbage is closed and opened again", () =>
    Effect.gen(function*() {
      const gets: Array<NodeHttp.ServerResponse> = []
      let firstClosed = false
      const url = yield* rawServer((req, res) => {
        if (req.method === "GET") {
          res.writeHead(200, { "content-type": "text/event-stream" })
          gets.push(res)
          if (gets.length === 1) res.on("close", () => (firstClosed = true))
          // The first stream: nothing but garbage, and it stays open; the second one is sound.
          if (gets.length === 1) { for (let i = 0; i < 40; i++) res.write("data: not json\n\n") }
          else {res.write(
              `data: ${JSON.stringify({ jsonrpc: "2.0", method: UPDATED, params: { uri: "x://sound" } })}\n\n`
            )}
          return
        }
        let body = ""
        req.on("data", (chunk) => (body += chunk))
        req.on("end", () => {
          const message = JSON.parse(body)
          if (message.id === undefined) return void res.writeHead(202).end()
          const answer = message.method === "initialize"
            ? { result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "raw", version: "1" } } }
            : { error: { code: -32601, message: "Method not found" } }
          res.writeHead(200, { "content-type": "application/json" })
          res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...answer }))
        })
      })
      const uris: Array<string> = []
      yield* ServerConnection.make(StreamableHttp.config({ name: "raw", url }), {
        clientInfo: { name: "test", version: "1" },
        onNotification: (_, method, params) => method === UPDATED && uris.push(String(params?.uri))
      })
      yield* until(() => uris.length === 1)
      assert.deepStrictEqual(uris, ["x://sound"])
      assert.strictEqual(gets.length, 2)
      // The client closed the garbage stream itself.
      assert.isTrue(firstClosed)
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)), 30_000)
})

/** A loopback HTTP server answering with `handler`, closed with the scope; its URL. */
const rawServer = (handler: NodeHttp.RequestListener) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.async<NodeHttp.Server>((resume) => {
        const server = NodeHttp.createServer(handler)
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    ),
    (server) => `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}/mcp`
  )
