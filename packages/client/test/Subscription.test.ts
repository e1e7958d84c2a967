import { assert, describe, it } from "@effect/vitest"
import { CapabilityError, RequestTimeoutError } from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as NotificationQueue from "../src/internal/notificationQueue.js"

const options: ServerConnection.Options = { clientInfo: { name: "t", version: "1" }, onNotification: () => {} }

const modern = (extra: Partial<FakeServer.Definition> = {}) =>
  Effect.gen(function*() {
    const server = yield* FakeServer.make({ ...Scenarios.demo, era: "dual", subscriptions: true, ...extra })
    const connection = yield* ServerConnection.make(server.config(), options)
    return { server, connection }
  })

describe("subscriptions/listen", () => {
  it.scoped("is acknowledged, delivers its notifications as a stream and ends gracefully", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* modern()
      const subscription = yield* connection.listen({
        toolsListChanged: true,
        resourceSubscriptions: ["demo://readme"],
        taskIds: ["t-1"]
      })
      assert.deepStrictEqual(subscription.acknowledged, {
        toolsListChanged: true,
        resourceSubscriptions: ["demo://readme"]
      })
      assert.deepStrictEqual(subscription.unsupported, ["taskIds"])
      assert.isTrue(Object.isFrozen(subscription.acknowledged))
      assert.isTrue(subscription.isActive())
      const collected = yield* Effect.fork(Stream.runCollect(subscription.notifications))
      yield* server.setTools([])
      yield* server.publish("notifications/resources/updated", { uri: "demo://readme" })
      yield* server.publish("notifications/resources/updated", { uri: "demo://other" })
      yield* server.endListens
      const seen = Chunk.toReadonlyArray(yield* Fiber.join(collected))
      assert.deepStrictEqual(seen.map((n) => [n.method, n.params?.uri]), [
        ["notifications/tools/list_changed", undefined],
        ["notifications/resources/updated", "demo://readme"]
      ])
      assert.isFalse(subscription.isActive())
    }))

  it.scoped("invalidates caches before the subscription's consumer sees the change", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* modern({ ttlMs: 60_000 })
      yield* connection.listTools()
      const subscription = yield* connection.listen({ toolsListChanged: true })
      yield* server.setTools([FakeServer.tool("fresh", () => Effect.succeed("x"))])
      const [first] = Chunk.toReadonlyArray(yield* Stream.runCollect(Stream.take(subscription.notifications, 1)))
      assert.strictEqual(first!.method, "notifications/tools/list_changed")
      assert.deepStrictEqual((yield* connection.listTools()).map((t) => t.name), ["fresh"])
    }))

  it.scoped("a consumer may make requests from inside its handling of a notification", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* modern()
      const subscription = yield* connection.listen({ toolsListChanged: true })
      const seen: Array<ReadonlyArray<string>> = []
      const consumer = yield* Effect.fork(
        Stream.runForEach(Stream.take(subscription.notifications, 1), () =>
          Effect.map(connection.listTools(), (tools) => {
            seen.push(tools.map((t) =>
              t.name
            ))
          }))
      )
      yield* server.setTools([FakeServer.tool("after", () => Effect.succeed("x"))])
      yield* Fiber.join(consumer)
      assert.deepStrictEqual(seen, [["after"]])
    }))

  it.scoped("closing the scope cancels the listen request on the server", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* modern()
      const scope = yield* Scope.make()
      yield* connection.listen({ toolsListChanged: true }).pipe(Scope.extend(scope))
      const [listen] = yield* server.requests("subscriptions/listen")
      yield* Scope.close(scope, Exit.void)
      yield* Effect.yieldNow()
      const cancelled = (yield* server.requests("notifications/cancelled")).map((r) => r.params?.requestId)
      assert.deepStrictEqual(cancelled, [listen!.id])
    }))

  it.scoped("an unacknowledged listen fails with RequestTimeoutError after ackTimeout", () =>
    Effect.gen(function*() {
      const { connection } = yield* modern({ faults: [{ method: "subscriptions/listen", action: "silence" }] })
      const fiber = yield* Effect.fork(
        Effect.flip(connection.listen({ toolsListChanged: true }, { ackTimeout: "3 seconds" }))
      )
      yield* TestClock.adjust("3 seconds")
      assert.instanceOf(yield* Fiber.join(fiber), RequestTimeoutError)
    }))

  it.scoped("a server that dies is restarted and the subscription re-sent to the new process", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* modern()
      const subscription = yield* connection.listen({ toolsListChanged: true })
      yield* TestClock.adjust("2 seconds")
      yield* server.crash
      yield* Effect.yieldNow()
      assert.isFalse(subscription.isActive())
      yield* TestClock.adjust("200 millis")
      yield* Effect.yieldNow()
      assert.isTrue(subscription.isActive())
      assert.strictEqual((yield* server.requests("subscriptions/listen")).length, 2)
      assert.strictEqual(yield* server.connections, 2)
      yield* server.setTools([])
      const [next] = Chunk.toReadonlyArray(yield* Stream.runCollect(Stream.take(subscription.notifications, 1)))
      assert.strictEqual(next!.method, "notifications/tools/list_changed")
    }))

  it.scoped("a process dying right after it acknowledged is a crash loop: the subscription ends", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* modern()
      const subscription = yield* connection.listen({ toolsListChanged: true })
      yield* server.crash
      const result = yield* Effect.either(Stream.runDrain(subscription.notifications))
      assert.strictEqual(result._tag, "Left")
      assert.strictEqual((yield* server.requests("subscriptions/listen")).length, 1)
    }))

  it.scoped("a legacy server has no listen: CapabilityError", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const connection = yield* ServerConnection.make(server.config(), options)
      assert.instanceOf(yield* Effect.flip(connection.listen({ toolsListChanged: true })), CapabilityError)
    }))
})

describe("the notification queue", () => {
  const updated = (uri: string, size = 0) => ({ uri, pad: "x".repeat(size) })

  it.effect("overflow drops the oldest repeat of the same thing, never the only signal of another", () =>
    Effect.gen(function*() {
      const queue = NotificationQueue.make<never>(3, 1_000_000)
      queue.offer("notifications/resources/updated", updated("a"))
      queue.offer("notifications/resources/updated", updated("b"))
      queue.offer("notifications/resources/updated", updated("a"))
      queue.offer("notifications/resources/updated", updated("a"))
      queue.end()
      const uris: Array<unknown> = []
      yield* Stream.runForEach(
        Stream.repeatEffectOption(queue.take),
        (n) => Effect.sync(() => uris.push(n.params?.uri))
      )
      assert.deepStrictEqual(uris, ["b", "a", "a"])
      assert.strictEqual(queue.dropped(), 1)
    }))

  it.effect("without a repeat, the busiest thing gives up its oldest entry", () =>
    Effect.gen(function*() {
      const queue = NotificationQueue.make<never>(3, 1_000_000)
      queue.offer("notifications/resources/updated", updated("busy"))
      queue.offer("notifications/resources/updated", updated("busy"))
      queue.offer("notifications/resources/updated", updated("quiet"))
      queue.offer("notifications/tools/list_changed", undefined)
      queue.end()
      const seen: Array<unknown> = []
      yield* Stream.runForEach(Stream.repeatEffectOption(queue.take), (n) =>
        Effect.sync(() => seen.push(n.params?.uri ?? n.method)))
      assert.deepStrictEqual(seen, ["busy", "quiet", "notifications/tools/list_changed"])
    }))

  it.effect("bytes are bounded too, and one oversized payload sits in a slot of its own", () =>
    Effect.gen(function*() {
      const queue = NotificationQueue.make<never>(100, 1_000)
      for (let i = 0; i < 10; i++) queue.offer("notifications/resources/updated", updated(`r${i}`, 200))
      assert.isAtMost(queue.pendingBytes(), 1_000)
      queue.offer("notifications/resources/updated", updated("huge", 5_000))
      queue.offer("notifications/resources/updated", updated("huge2", 5_000))
      assert.isAtMost(queue.pendingBytes(), 1_000)
      const before = queue.pending()
      queue.end()
      const seen: Array<unknown> = []
      yield* Stream.runForEach(
        Stream.repeatEffectOption(queue.take),
        (n) => Effect.sync(() => seen.push(n.params?.uri))
      )
      assert.strictEqual(seen.length, before)
      assert.include(seen, "huge2")
      assert.notInclude(seen, "huge")
    }))
})

describe("subscribeResource", () => {
  it.scoped("on 2026-07-28 watches through a listen stream naming the URI, until unsubscribed", () =>
    Effect.gen(function*() {
      const updates: Array<unknown> = []
      const server = yield* FakeServer.make({ ...Scenarios.demo, era: "dual", subscriptions: true })
      const connection = yield* ServerConnection.make(server.config(), {
        ...options,
        onNotification: (_, method, params) => {
          if (method === "notifications/resources/updated") updates.push(params?.uri)
        }
      })
      yield* connection.subscribeResource("demo://readme")
      const [listen] = yield* server.requests("subscriptions/listen")
      assert.deepStrictEqual(listen!.params!.notifications, { resourceSubscriptions: ["demo://readme"] })
      yield* server.publish("notifications/resources/updated", { uri: "demo://readme" })
      assert.deepStrictEqual(updates, ["demo://readme"])
      yield* connection.unsubscribeResource("demo://readme")
      yield* Effect.yieldNow()
      assert.deepStrictEqual((yield* server.requests("notifications/cancelled")).map((r) => r.params?.requestId), [
        listen!.id
      ])
    }))

  it.scoped("fails when the acknowledgement does not name the URI", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ ...Scenarios.demo, era: "dual", subscriptions: false })
      const connection = yield* ServerConnection.make(server.config(), options)
      assert.instanceOf(yield* Effect.flip(connection.subscribeResource("demo://readme")), CapabilityError)
    }))
})

describe("re-opened subscriptions are revalidated", () => {
  it.scoped("a re-acknowledgement that no longer names a watched resource ends the subscription", () =>
    Effect.gen(function*() {
      const definition = { ...Scenarios.demo, era: "dual" as const, subscriptions: true }
      const server = yield* FakeServer.make(definition)
      const connection = yield* ServerConnection.make(server.config(), options)
      const subscription = yield* connection.listen({ resourceSubscriptions: ["demo://readme"] })
      assert.deepStrictEqual(subscription.acknowledged.resourceSubscriptions, ["demo://readme"])
      ;(definition as { subscriptions: boolean }).subscriptions = false
      yield* TestClock.adjust("2 seconds")
      yield* server.crash
      yield* Effect.yieldNow()
      yield* TestClock.adjust("200 millis")
      const ended = yield* Effect.either(Stream.runDrain(subscription.notifications))
      assert.strictEqual(ended._tag, "Left")
      assert.instanceOf((ended as { left: unknown }).left, CapabilityError)
      assert.isFalse(subscription.isActive())
    }))
})
