import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fakeServerBin } from "./paths.js"

/** A home folder with Cursor's user configuration naming the fake server. */
const cursorHome = () => {
  const home = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-home-"))
  Fs.mkdirSync(Path.join(home, ".cursor"))
  Fs.writeFileSync(
    Path.join(home, ".cursor", "mcp.json"),
    JSON.stringify({ mcpServers: { fake: { command: "${NODE_BIN}", args: [fakeServerBin] } } })
  )
  return home
}

const withEnv = <A, E, R>(layer: Layer.Layer<A, E, R>, env: Record<string, string>) =>
  Layer.fresh(layer).pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))

const echo = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const result = yield* client.callTool("echo", { message: "found" })
  return [client.servers.map((s) => s.name), result.content]
})

describe("NodeMcpClient configuration lookup", () => {
  it.live("fromHost reads the host's file, with ${VAR} expanded", () =>
    Effect.gen(function*() {
      const home = cursorHome()
      const layer = withEnv(NodeMcpClient.fromHost("cursor"), { HOME: home, NODE_BIN: process.execPath })
      assert.deepStrictEqual(yield* Effect.provide(echo, layer), [["fake"], [{ type: "text", text: "found" }]])
    }))

  it.live("McpClientLive takes a host name in MCP_CONFIG", () =>
    Effect.gen(function*() {
      const home = cursorHome()
      const layer = withEnv(NodeMcpClient.McpClientLive, {
        MCP_CONFIG: "cursor",
        HOME: home,
        NODE_BIN: process.execPath
      })
      assert.deepStrictEqual(yield* Effect.provide(echo, layer), [["fake"], [{ type: "text", text: "found" }]])
    }))

  it.live("a host without a configuration says where it looked", () =>
    Effect.gen(function*() {
      const home = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-home-"))
      const error = yield* Effect.flip(
        Effect.provide(echo, withEnv(NodeMcpClient.fromHost("windsurf"), { HOME: home }))
      )
      assert.deepStrictEqual(
        [error._tag, error.message],
        ["ConfigError", `no Windsurf configuration found (looked in ${home}/.codeium/windsurf/mcp_config.json)`]
      )
    }))
})
