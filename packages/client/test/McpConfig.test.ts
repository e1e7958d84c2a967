import { assert, describe, it } from "@effect/vitest"
import * as McpConfig from "@mcp-effect/client/McpConfig"
import { ConfigError } from "@mcp-effect/client/McpError"
import * as Effect from "effect/Effect"

describe("McpConfig", () => {
  it.effect("reads stdio, streamable_http, sse and http entries in file order", () =>
    Effect.gen(function*() {
      const configs = yield* McpConfig.parse({
        mcpServers: {
          files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/home"] },
          api: { type: "streamable_http", url: "https://api.example.com/mcp", headers: { Authorization: "Bearer T" } },
          old: { type: "sse", url: "https://old.example.com/sse" },
          rpc: { type: "http", url: "https://rpc.example.com", endpoint: "/rpc" }
        }
      })
      assert.deepStrictEqual(configs.map((c) => [c.name, c.kind]), [
        ["files", "stdio"],
        ["api", "streamable_http"],
        ["old", "sse"],
        ["rpc", "http"]
      ])
    }))

  it.effect("names the bad entry in a ConfigError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(McpConfig.parse({ mcpServers: { broken: { type: "ftp", url: "x" } } }))
      assert.instanceOf(error, ConfigError)
      assert.include(error.message, "broken")
      assert.instanceOf(yield* Effect.flip(McpConfig.parse({ servers: {} })), ConfigError)
    }))
})
