/**
 * `protocol: "auto"` over Streamable HTTP against a 2026-07-28-only server whose first
 * `server/discover` answer comes after the discover timeout: `initialize` is refused with HTTP
 * 400 and -32020 (as such servers refuse a request without `MCP-Protocol-Version`), and the
 * client probes once more, with the modern headers, instead of failing.
 */
import { assert, describe, it } from "@effect/vitest"
import * as EraCache from "@mcp-effect/client/EraCache"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"

const options: ServerConnection.Options = { clientInfo: { name: "test", version: "1" }, onNotification: () => {} }

const missingHeader = {
  method: "initialize",
  status: 400,
  code: -32020,
  message: "Missing MCP-Protocol-Version header"
} as const

const connect = (server: FakeHttpServer.FakeHttpServer) =>
  ServerConnection.make(
    StreamableHttp.config({ name: "http", url: server.mcpUrl, readTimeout: "1 hour" }),
    // The stalled probe times out; the second one waits for as long as a request.
    { ...options, discoverTimeout: "1 second" }
  )

// The transport's code is loaded with the first HTTP connection (under vitest, compiled then):
// loaded first, so that the first probe reaches the server within the discover timeout.
const warmUp = Effect.flatMap(
  FakeHttpServer.make({ definition: Scenarios.demo }),
  (server) =>
    ServerConnection.make(StreamableHttp.config({ name: "warm", url: server.mcpUrl }), {
      ...options,
      protocol: "legacy"
    })
)

const posts = (server: FakeHttpServer.FakeHttpServer) =>
  Effect.map(server.requests, (all) =>
    all.flatMap((r) => {
      const method = (r.body as { method?: string } | undefined)?.method
      return r.method === "POST" && method !== undefined && method !== "notifications/cancelled"
        ? [{ method, version: r.headers["mcp-protocol-version"] }]
        : []
    }))

describe("era detection over Streamable HTTP: a late server/discover answer", () => {
  it.scopedLive("initialize refused with 400 / -32020 → server/discover again with the modern headers → modern", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({
        definition: { ...Scenarios.demo, era: "modern" },
        stall: { method: "server/discover", times: 1 },
        status4xx: missingHeader
      })
      yield* warmUp
      const connection = yield* connect(server)
      // The first probe's answer, late: the connection has moved on.
      yield* server.releaseStalled
      assert.strictEqual(connection.negotiated()!.era, "modern")
      assert.deepStrictEqual(yield* posts(server), [
        { method: "server/discover", version: "2026-07-28" },
        { method: "initialize", version: undefined },
        { method: "server/discover", version: "2026-07-28" }
      ])
      const result = yield* connection.callTool("echo", { message: "hi" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "hi" }])
    }).pipe(Effect.provide(NodeMcpClient.platform)))

  it.scopedLive("with an EraCache remembering legacy: the refusal makes it modern in the same connect", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({
        definition: { ...Scenarios.demo, era: "modern" },
        status4xx: missingHeader
      })
      const cache = EraCache.makeMemory()
      const key = EraCache.urlKey(server.mcpUrl)
      yield* cache.set(key, "legacy")
      const connection = yield* connect(server).pipe(Effect.provideService(EraCache.EraCache, cache))
      assert.strictEqual(connection.negotiated()!.era, "modern")
      assert.deepStrictEqual((yield* posts(server)).map((p) => p.method), ["initialize", "server/discover"])
      assert.strictEqual(yield* cache.get(key), "modern")
    }).pipe(Effect.provide(NodeMcpClient.platform)))
})
