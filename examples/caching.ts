/**
 * The result cache (docs/caching.md): a 2026-07-28 list is reused while its `ttlMs` says it is
 * fresh, `cacheInfo` shows what is kept, `clearCache` drops it.
 *
 * @since 0.1.0
 */
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

const program = Effect.gen(function*() {
  const server = yield* FakeServer.make({ ...Scenarios.demo, era: "modern", ttlMs: 60_000, cacheScope: "public" })
  const connection = yield* ServerConnection.make(server.config({ name: "demo" }), {
    clientInfo: { name: "caching-example", version: "1.0.0" },
    onNotification: () => {}
  })
  const asked = Effect.map(server.requests("tools/list"), (r) => r.length)
  yield* connection.listTools()
  yield* connection.listTools()
  yield* Console.log(`two listTools, tools/list requests: ${yield* asked}`)
  const info = yield* connection.cacheInfo("tools")
  yield* Console.log(`cacheInfo: ttlMs ${info?.ttlMs}, scope ${info?.cacheScope}, fresh ${info?.fresh}`)
  yield* connection.clearCache
  yield* connection.listTools()
  yield* Console.log(`after clearCache, tools/list requests: ${yield* asked}`)
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})
