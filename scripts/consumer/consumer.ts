// A project that depends on the packed tarballs, on an Effect 3.x other than the workspace's:
// it must type-check under strict `nodenext` and run. Argument: the fake server executable.
import * as McpClient from "@mcp-effect/client/McpClient"
import * as Stdio from "@mcp-effect/client/Stdio"
import { connect, connectFromConfig, NodeMcpClient } from "@mcp-effect/node"
import type * as Standalone from "@mcp-effect/node/standalone"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const fakeServer = process.argv[2]!

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const tools = yield* client.listTools()
  const result = yield* client.callTool("add", { a: 2, b: 3 }, { timeout: "10 seconds" })
  return { tools: tools.map((tool) => tool.name), structured: result.structuredContent }
}).pipe(
  Effect.catchTag("RequestTimeoutError", (error) => Effect.succeed({ tools: [], structured: error.message }))
)

const viaEffect = await program.pipe(
  Effect.provide(
    NodeMcpClient.layer({
      servers: [Stdio.config({ name: "fake", command: process.execPath, args: [fakeServer] })]
    })
  ),
  Effect.runPromise
)

// The standalone facade's declarations resolve, and its connect is the package's.
const standaloneConnect: typeof Standalone.connect = connect
const client = await standaloneConnect([process.execPath, fakeServer])
const echoed = await client.callTool("echo", { message: "hi" })
await client.close()

// The same server from a configuration file, through the package root's `connectFromConfig`.
const configFile = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "consumer-")), "mcp.json")
Fs.writeFileSync(
  configFile,
  JSON.stringify({ mcpServers: { fake: { command: process.execPath, args: [fakeServer] } } })
)
const configured = await connectFromConfig(configFile)
const fromConfig = (await configured.listTools()).map((tool) => tool.name)
await configured.close()
Fs.rmSync(Path.dirname(configFile), { recursive: true })

console.log(JSON.stringify({ viaEffect, echoed: echoed.content, fromConfig }))
