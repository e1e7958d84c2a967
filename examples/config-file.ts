/**
 * `McpClientLive`: the servers come from the configuration file named by `MCP_CONFIG` (else
 * `./.mcp.json`, else `./mcp.json`; see docs/config.md).
 *
 * @since 0.1.0
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import { McpClientLive } from "@mcp-effect/node/NodeMcpClient"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { demoServer } from "./shared.js"

const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mcp-effect-example-")), "mcp.json")
const [command, ...args] = demoServer
fs.writeFileSync(file, JSON.stringify({ mcpServers: { demo: { type: "stdio", command, args } } }, null, 2))
process.env.MCP_CONFIG = file

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  yield* Console.log(`configured servers: ${client.servers.map((s) => s.name).join(", ")}`)
  const read = yield* client.readResource("demo://readme")
  yield* Console.log(`demo://readme → ${JSON.stringify(read.contents[0])}`)
})

program.pipe(Effect.provide(McpClientLive), Effect.runPromise).catch((error) => {
  console.error(error)
  process.exit(1)
})
