/**
 * A result cache shared by connections (docs/fleets.md): with a `CacheStore` in the context, a
 * public list one connection fetched serves the others, and a private list serves only requests
 * carrying the same credential. `CacheStore.layerMemory` shares within this process; a fleet uses
 * `RedisCacheStore.layer()` of `@mcp-effect/redis` the same way.
 *
 * @since 0.2.0
 */
import * as CacheStore from "@mcp-effect/client/CacheStore"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

const options = { clientInfo: { name: "shared-cache-example", version: "1.0.0" }, onNotification: () => {} }

const program = Effect.gen(function*() {
  const server = yield* FakeServer.make({ ...Scenarios.demo, era: "modern", ttlMs: 60_000, cacheScope: "public" })
  const first = yield* ServerConnection.make(server.config({ name: "demo" }), options)
  const second = yield* ServerConnection.make(server.config({ name: "demo" }), options)
  yield* first.listTools()
  yield* second.listTools()
  const asked = (yield* server.requests("tools/list")).length
  yield* Console.log(`two connections listed tools, tools/list requests: ${asked}`)
}).pipe(Effect.scoped, Effect.provide(CacheStore.layerMemory))

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exit(1)
})
