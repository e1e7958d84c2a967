/**
 * Server logs: `setLogLevel` asks for `notifications/message` at a level and above (2026-07-28:
 * the level rides on every request's `_meta`; logging is deprecated there, and the client warns
 * once). Server lines reach listeners escaped; the client's own lines go to the host's logger.
 *
 * @since 0.1.0
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"

/** The host's logger: one short line per client log line. */
const hostLogger = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ logLevel, message }) => console.log(`client ${logLevel.label}: ${String(message).slice(0, 48)}…`))
)

const program = Effect.gen(function*() {
  const server = yield* FakeServer.make({ ...Scenarios.demo, era: "modern", logging: true })
  const client = yield* McpClient.make({
    servers: [server.config({ name: "demo" })],
    onNotification: (name, method, params) => {
      if (method === "notifications/message") {
        console.log(`server log (${name}, ${String(params?.level)}): ${String(params?.data)}`)
      }
    }
  })
  yield* client.setLogLevel("info")
  yield* client.callTool("log", { data: "hello from the server", level: "info" })
  const [call] = yield* server.requests("tools/call")
  const meta = call?.params?._meta as Record<string, unknown> | undefined
  yield* Console.log(`the call carried logLevel ${String(meta?.["io.modelcontextprotocol/logLevel"])}`)
})

Effect.runPromise(Effect.scoped(program).pipe(Effect.provide(hostLogger))).catch((error) => {
  console.error(error)
  process.exit(1)
})
