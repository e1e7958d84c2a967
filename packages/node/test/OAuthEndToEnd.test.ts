/**
 * OAuth end to end on loopback: a protected MCP server (a gateway checking Bearer tokens in front
 * of a fake MCP server), a local authorization server, and the browser flow driven headlessly
 * (the "browser" follows the authorization URL and requests the callback).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as OAuth from "@mcp-effect/client/OAuth"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import { connect } from "@mcp-effect/node/Connect"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as NodeOAuthBrowser from "@mcp-effect/node/NodeOAuthBrowser"
import * as FakeOAuthServer from "@mcp-effect/testing/FakeOAuthServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

describe("OAuth end to end", () => {
  it.scopedLive("authorizes through the browser flow, refreshes, and steps up to a larger scope [not-on-bun: provides the platform's undici client, which needs undici's dispatcher API]", () =>
    Effect.gen(function*() {
      const server = yield* FakeOAuthServer.make
      const { grants, tokens } = server
      const browser = yield* NodeOAuthBrowser.make({ printUrl: () => {}, openBrowser: server.approve })
      const auth = yield* OAuth.make({
        serverUrl: server.mcpUrl,
        redirectUri: browser.redirectUri,
        authorize: browser.authorize
      })
      const connection = yield* ServerConnection.make(
        StreamableHttp.config({ name: "protected", url: server.mcpUrl, auth }),
        { clientInfo: { name: "test", version: "1" }, onNotification: () => {} }
      )

      const tools = yield* connection.listTools()
      assert.isTrue(tools.some((tool) => tool.name === "echo"))
      const result = yield* connection.callTool("echo", { message: "hi" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "hi" }])

      const kinds = grants.map((g) => g.grant)
      // The first code grant asked for the resource's scopes (offline_access added: the AS lists it).
      assert.strictEqual(kinds[0], "authorization_code")
      assert.isTrue(kinds.includes("refresh_token"), `grants: ${kinds.join(", ")}`)
      // Step-up: a second code grant, asking for the union.
      const codeGrants = grants.filter((g) => g.grant === "authorization_code")
      assert.strictEqual(codeGrants.length, 2)
      const stepUp = [...tokens.values()].some((t) => t.scopes.includes("mcp:read") && t.scopes.includes("mcp:write"))
      assert.isTrue(stepUp)
      // The HttpClient must outlive the McpAuth that captured it: provide it around both.
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.scopedLive("connect({ oauth }) runs the browser flow, steps up, and a later connect resumes the stored token", () =>
    Effect.gen(function*() {
      const server = yield* FakeOAuthServer.make
      const { grants } = server
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-e2e-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true })))
      const storage = Path.join(dir, "tokens.json")
      const opened: Array<string> = []
      const oauth = {
        storage,
        printUrl: () => {},
        openBrowser: (url: string) => {
          opened.push(url)
          server.approve(url)
        }
      }
      const first = yield* Effect.promise(() => connect(server.mcpUrl, { oauth }))
      const tools = yield* Effect.promise(() => first.listTools())
      assert.isTrue(tools.some((tool) => tool.name === "echo"))
      const result = yield* Effect.promise(() => first.callTool("echo", { message: "hi" }))
      assert.deepStrictEqual(result.content, [{ type: "text", text: "hi" }])
      yield* Effect.promise(() => first.close())
      // The first request's challenge, then the 403 step-up: two trips through the browser.
      assert.strictEqual(opened.length, 2)
      assert.strictEqual(new URL(opened[1]!).searchParams.get("scope")?.includes("mcp:write"), true)
      assert.strictEqual(Fs.statSync(storage).mode & 0o777, 0o600)

      // A new client on the same storage sends the kept token: no browser.
      const codeGrants = grants.filter((g) => g.grant === "authorization_code").length
      const second = yield* Effect.promise(() => connect(server.mcpUrl, { oauth }))
      const again = yield* Effect.promise(() => second.callTool("echo", { message: "again" }))
      yield* Effect.promise(() => second.close())
      assert.deepStrictEqual(again.content, [{ type: "text", text: "again" }])
      assert.strictEqual(opened.length, 2)
      assert.strictEqual(grants.filter((g) => g.grant === "authorization_code").length, codeGrants)
    }))

  it.scopedLive("a configuration entry's oauth sends the token kept in its storage file", () =>
    Effect.gen(function*() {
      const server = yield* FakeOAuthServer.make
      const { grants, tokens } = server
      tokens.set("kept-token", { scopes: ["mcp:read", "mcp:write"] })
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-config-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true })))
      // The storage path is relative to the configuration file.
      Fs.writeFileSync(
        Path.join(dir, "tokens.json"),
        JSON.stringify({
          [`token:${server.mcpUrl}`]: {
            issuer: server.issuer,
            tokenType: "Bearer",
            accessToken: "kept-token",
            scopes: []
          }
        })
      )
      const config = Path.join(dir, "mcp.json")
      Fs.writeFileSync(
        config,
        JSON.stringify({
          mcpServers: {
            protected: {
              type: "streamable_http",
              url: server.mcpUrl,
              oauth: { storage: "tokens.json", interactive: false }
            }
          }
        })
      )
      const client = Context.get(yield* Layer.build(NodeMcpClient.fromFile(config)), McpClient.McpClient)
      const result = yield* client.callTool("echo", { message: "from config" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "from config" }])
      assert.deepStrictEqual(grants, [])
    }))
})
