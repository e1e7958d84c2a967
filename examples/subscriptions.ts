/**
 * 2026-07-28 subscriptions: `listen` opens a `subscriptions/listen` stream; the server's change
 * notifications arrive on it (and the client's caches are dropped before the consumer sees them).
 *
 * @since 0.1.0
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

const program = Effect.gen(function*() {
  const server = yield* FakeServer.make({ ...Scenarios.demo, era: "modern", subscriptions: true })
  const client = yield* McpClient.make({ servers: [server.config({ name: "demo" })] })
  const subscription = yield* client.listen({ toolsListChanged: true, resourceSubscriptions: ["demo://readme"] })
  yield* Console.log(`acknowledged: ${Object.keys(subscription.acknowledged).join(", ")}`)
  yield* server.publish("notifications/tools/list_changed")
  yield* server.publish("notifications/resources/updated", { uri: "demo://readme" })
  yield* subscription.notifications.pipe(
    Stream.take(2),
    Stream.runForEach((n) => Console.log(`notification: ${n.method}`))
  )
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})
