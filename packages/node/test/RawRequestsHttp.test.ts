import { assert, describe, it } from "@effect/vitest"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

const options: ServerConnection.Options = { clientInfo: { name: "test", version: "1" }, onNotification: () => {} }

const posts = (server: FakeHttpServer.FakeHttpServer, method: string) =>
  Effect.map(
    server.requests,
    (all) => all.filter((r) => r.method === "POST" && (r.body as { method?: string } | undefined)?.method === method)
  )

describe("raw requests over Streamable HTTP, 2026-07-28", () => {
  it.scopedLive("carry the era's headers (Mcp-Method, and Mcp-Name for a method that names its subject)", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({
        definition: { ...Scenarios.demo, era: "dual", methods: { "acme/status": () => Effect.succeed({ ok: true }) } }
      })
      const connection = yield* ServerConnection.make(
        StreamableHttp.config({ name: "http", url: server.mcpUrl, retryBase: "10 millis" }),
        options
      )
      assert.strictEqual(connection.negotiated()!.era, "modern")
      assert.deepStrictEqual(yield* connection.request("acme/status"), { resultType: "complete", ok: true })
      yield* connection.request("prompts/get", { name: "greeting", arguments: { name: "Ada" } })
      yield* connection.notify("notifications/acme/hello")
      const [status] = yield* posts(server, "acme/status")
      assert.strictEqual(status!.headers["mcp-protocol-version"], "2026-07-28")
      assert.strictEqual(status!.headers["mcp-method"], "acme/status")
      const [prompt] = yield* posts(server, "prompts/get")
      assert.strictEqual(prompt!.headers["mcp-name"], "greeting")
      const [hello] = yield* posts(server, "notifications/acme/hello")
      assert.strictEqual(hello!.headers["mcp-protocol-version"], "2026-07-28")
      assert.strictEqual(hello!.headers["mcp-method"], "notifications/acme/hello")
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)))
})
