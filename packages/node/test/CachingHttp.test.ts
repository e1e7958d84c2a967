import { assert, describe, it } from "@effect/vitest"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

describe("caching over Streamable HTTP", () => {
  it.scopedLive("a 2026-07-28 list with ttl 0 is never reused, yet serves as the stale copy on a transient failure", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: { ...Scenarios.demo, era: "modern", ttlMs: 0 } })
      const connection = yield* ServerConnection.make(
        StreamableHttp.config({ name: "http", url: server.mcpUrl, retries: 0 }),
        { clientInfo: { name: "test", version: "1" }, onNotification: () => {} }
      )
      const first = yield* connection.listTools()
      yield* connection.listTools()
      const lists = Effect.map(
        server.requests,
        (all) => all.filter((r) => (r.body as { method?: string } | undefined)?.method === "tools/list").length
      )
      assert.strictEqual(yield* lists, 2)
      yield* server.setFaults({ status5xxTimes: 1 })
      assert.deepStrictEqual(yield* connection.listTools(), first)
      assert.strictEqual(yield* lists, 3)
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)))
})
