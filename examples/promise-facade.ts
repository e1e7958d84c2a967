/**
 * The Promise facade for plain async code: `connect`, calls, notifications, typed errors.
 *
 * @since 0.1.0
 */
import { AmbiguousToolError } from "@mcp-effect/client/McpError"
import { connect } from "@mcp-effect/node/Connect"
import { demoServer } from "./shared.js"

const main = async () => {
  // Two servers: the same demo twice, as two command lines.
  const line = demoServer.map((part) => JSON.stringify(part)).join(" ")
  const client = await connect([line, line])
  try {
    console.log(`servers: ${client.servers.map((s) => `${s.name} (${s.era} ${s.protocolVersion})`).join(", ")}`)
    const stop = client.onNotification((server, method) => console.log(`notification from ${server}: ${method}`))
    await client.callTool("log", { data: "hello" }, { server: client.servers[0]!.name })
    stop()
    try {
      await client.callTool("echo", { message: "which one?" })
    } catch (error) {
      if (error instanceof AmbiguousToolError) console.log(`ambiguous: offered by ${error.servers.join(" and ")}`)
      else throw error
    }
    const result = await client.callTool("echo", { message: "hi" }, { server: client.servers[1]!.name })
    console.log(`echo → ${JSON.stringify(result.content)}`)
  } finally {
    await client.close()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
