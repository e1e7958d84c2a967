import { assert, describe, it } from "@effect/vitest"
import * as McpAuth from "@mcp-effect/client/McpAuth"
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

  describe("oauth entries", () => {
    const recording = () => {
      const entries: Array<McpConfig.OAuthEntry> = []
      return {
        entries,
        oauth: (entry: McpConfig.OAuthEntry) =>
          Effect.sync(() => {
            entries.push(entry)
            return McpAuth.fromHeaders({})
          })
      }
    }

    it.effect("hands each HTTP entry's oauth to the host; true means defaults, false none", () =>
      Effect.gen(function*() {
        const host = recording()
        const configs = yield* McpConfig.parse({
          mcpServers: {
            interactive: { type: "streamable_http", url: "https://a.example.com/mcp", oauth: true },
            registered: {
              type: "http",
              url: "https://b.example.com/rpc",
              oauth: { clientId: "c", issuer: "https://auth.example.com", scope: "files:read", storage: "t.json" }
            },
            off: { type: "sse", url: "https://c.example.com/sse", oauth: false },
            local: { command: "node", args: ["server.js"] }
          }
        }, host)
        assert.deepStrictEqual(configs.map((c) => c.name), ["interactive", "registered", "off", "local"])
        assert.deepStrictEqual(host.entries, [
          { name: "interactive", url: "https://a.example.com/mcp", settings: {} },
          {
            name: "registered",
            url: "https://b.example.com/rpc",
            settings: { clientId: "c", issuer: "https://auth.example.com", scope: "files:read", storage: "t.json" }
          }
        ])
      }))

    it.effect("refuses oauth it cannot honour, naming the entry", () =>
      Effect.gen(function*() {
        const host = recording()
        const refused = (entry: unknown, options: McpConfig.ParseOptions = host) =>
          Effect.map(Effect.flip(McpConfig.parse({ mcpServers: { bad: entry } }, options)), (e) => e.message)
        const http = { type: "streamable_http", url: "https://a.example.com/mcp" }
        assert.include(yield* refused({ ...http, oauth: true }, {}), "oauth needs a host")
        assert.include(yield* refused({ command: "node", oauth: true }), "HTTP entries only")
        assert.include(yield* refused({ ...http, oauth: { client_id: "c" } }), "client_id")
        assert.include(
          yield* refused({ ...http, headers: { Authorization: "Bearer t" }, oauth: true }),
          "exclude each other"
        )
        const unbound = yield* refused({ ...http, oauth: { clientId: "c" } })
        assert.include(unbound, "bad")
        assert.include(unbound, "issuer")
        assert.deepStrictEqual(host.entries, [])
      }))

    it.effect("maps settings to OAuth options: issuer-bound pre-registration, client credentials", () =>
      Effect.gen(function*() {
        const url = "https://a.example.com/mcp"
        const pre = yield* McpConfig.oauthOptions(url, { clientId: "c", clientSecret: "s", issuer: "https://as" })
        assert.deepStrictEqual(pre.preRegistered, {
          clientId: "c",
          clientSecret: "s",
          issuer: "https://as",
          tokenEndpointAuthMethod: undefined
        })
        const m2m = yield* McpConfig.oauthOptions(url, {
          grant: "client_credentials",
          clientId: "m",
          clientSecret: "s",
          scope: "a b"
        })
        assert.deepStrictEqual(m2m.grant, {
          _tag: "ClientCredentials",
          clientId: "m",
          clientSecret: "s",
          tokenEndpointAuthMethod: undefined,
          issuer: undefined,
          scope: "a b"
        })
        const unbound = yield* Effect.flip(McpConfig.oauthOptions(url, { clientId: "c" }))
        assert.include(unbound.message, "issuer")
      }))
  })
})
