import { assert, describe, it } from "@effect/vitest"
import { CapabilityError, InvalidResponseError, RequestTimeoutError } from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Subscription from "@mcp-effect/client/Subscription"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as NotificationQueue from "../src/internal/connection/notificationQueue.js"

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

  it.scoped("ackTimeout: false waits for the acknowledgement for ever", () =>
    Effect.gen(function*() {
      const { connection } = yield* modern({ faults: [{ method: "subscriptions/listen", action: "silence" }] })
      const fiber = yield* Effect.fork(connection.listen({ toolsListChanged: true }, { ackTimeout: false }))
      yield* TestClock.adjust("1 hour")
      assert.strictEqual((yield* Fiber.poll(fiber))._tag, "None", "still waiting")
      yield* Fiber.interrupt(fiber)
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

  it.scoped("unsupported is read from the acknowledgement's values, not its keys", () =>
    Effect.gen(function*() {
      const { connection } = yield* modern({
        faults: [{
          method: "subscriptions/listen",
          action: "acknowledge",
          notifications: {
            toolsListChanged: false,
            promptsListChanged: true,
            resourceSubscriptions: [],
            taskIds: ["someone-else"]
          }
        }]
      })
      const subscription = yield* connection.listen({
        toolsListChanged: true,
        promptsListChanged: true,
        resourceSubscriptions: ["demo://readme"],
        taskIds: ["t-1"]
      })
      assert.deepStrictEqual(subscription.unsupported, ["toolsListChanged", "resourceSubscriptions", "taskIds"])
      assert.deepStrictEqual(subscription.acknowledged, {
        toolsListChanged: false,
        promptsListChanged: true,
        resourceSubscriptions: [],
        taskIds: ["someone-else"]
      })
    }))

  it.scoped("a server's notifications/cancelled naming the listen request ends it gracefully", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* modern()
      const subscription = yield* connection.listen({ toolsListChanged: true })
      const collected = yield* Effect.fork(Stream.runCollect(subscription.notifications))
      yield* server.setTools([])
      yield* server.cancelListens
      const seen = Chunk.toReadonlyArray(yield* Fiber.join(collected))
      assert.deepStrictEqual(seen.map((n) => n.method), ["notifications/tools/list_changed"])
      assert.isFalse(subscription.isActive())
      // Ended, not dropped: nothing is re-opened.
      yield* TestClock.adjust("1 minute")
      assert.strictEqual((yield* server.requests("subscriptions/listen")).length, 1)
    }))

  for (
    const [label, result] of [
      ["an unknown resultType", { resultType: "mystery" }],
      ["a scalar result", 42],
      ["a missing (null) result", null],
      ["input_required", { resultType: "input_required", inputRequests: {} }]
    ] as const
  ) {
    it.scoped(`a closing response with ${label} fails the subscription with InvalidResponseError`, () =>
      Effect.gen(function*() {
        const { connection, server } = yield* modern({
          faults: [{ method: "subscriptions/listen", action: "result", result }]
        })
        const subscription = yield* connection.listen({ toolsListChanged: true })
        const ended = yield* Effect.either(Stream.runDrain(subscription.notifications))
        assert.strictEqual(ended._tag, "Left")
        assert.instanceOf((ended as { left: unknown }).left, InvalidResponseError)
        assert.isFalse(subscription.isActive())
        yield* TestClock.adjust("1 minute")
        assert.strictEqual((yield* server.requests("subscriptions/listen")).length, 1)
      }))
  }

  it.scoped("a re-opened listen must be acknowledged within ackTimeout too", () =>
    Effect.gen(function*() {
      const faults: Array<FakeServer.Fault> = []
      const { connection, server } = yield* modern({ faults })
      const subscription = yield* connection.listen({ toolsListChanged: true }, { ackTimeout: "3 seconds" })
      yield* TestClock.adjust("2 seconds")
      faults.push({ method: "subscriptions/listen", action: "silence" })
      yield* server.crash
      yield* Effect.yieldNow()
      yield* TestClock.adjust("200 millis")
      yield* Effect.yieldNow()
      assert.strictEqual((yield* server.requests("subscriptions/listen")).length, 2)
      assert.isFalse(subscription.isActive())
      const ended = yield* Effect.fork(Effect.either(Stream.runDrain(subscription.notifications)))
      yield* TestClock.adjust("3 seconds")
      const result = yield* Fiber.join(ended)
      assert.strictEqual(result._tag, "Left")
      assert.instanceOf((result as { left: unknown }).left, RequestTimeoutError)
      // The unanswered re-open was cancelled on the server.
      const [, reopened] = yield* server.requests("subscriptions/listen")
      assert.deepStrictEqual(
        (yield* server.requests("notifications/cancelled")).map((r) => r.params?.requestId),
        [reopened!.id]
      )
    }))

  it.scoped("a restart that negotiates a legacy revision ends the subscription with CapabilityError", () =>
    Effect.gen(function*() {
      const definition: { -readonly [K in keyof FakeServer.Definition]: FakeServer.Definition[K] } = {
        ...Scenarios.demo,
        era: "dual",
        subscriptions: true
      }
      const server = yield* FakeServer.make(definition)
      const connection = yield* ServerConnection.make(server.config(), options)
      const subscription = yield* connection.listen({ toolsListChanged: true })
      yield* TestClock.adjust("2 seconds")
      definition.era = "legacy"
      yield* server.crash
      yield* Effect.yieldNow()
      yield* TestClock.adjust("200 millis")
      const ended = yield* Effect.either(Stream.runDrain(subscription.notifications))
      assert.strictEqual(ended._tag, "Left")
      assert.instanceOf((ended as { left: unknown }).left, CapabilityError)
      assert.strictEqual(yield* server.connections, 2)
      assert.strictEqual(connection.negotiated()!.era, "legacy")
      assert.strictEqual((yield* server.requests("subscriptions/listen")).length, 1)
    }))

  it.scoped("a connection the host closes ends its subscriptions: no restart, not a crash", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ ...Scenarios.demo, era: "dual", subscriptions: true })
      const connectionScope = yield* Scope.make()
      const connection = yield* ServerConnection.make(server.config(), options).pipe(Scope.extend(connectionScope))
      const subscription = yield* connection.listen({ toolsListChanged: true })
      yield* TestClock.adjust("2 seconds")
      yield* Scope.close(connectionScope, Exit.void)
      const ended = yield* Effect.fork(Effect.either(Stream.runDrain(subscription.notifications)))
      yield* TestClock.adjust("1 minute")
      assert.strictEqual((yield* Fiber.join(ended))._tag, "Right")
      assert.isFalse(subscription.isActive())
      assert.strictEqual(yield* server.connections, 1)
      assert.strictEqual((yield* server.requests("subscriptions/listen")).length, 1)
    }))

  it.scoped("a connection the host closes right after the acknowledgement is not a crash loop either", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ ...Scenarios.demo, era: "dual", subscriptions: true })
      const connectionScope = yield* Scope.make()
      const connection = yield* ServerConnection.make(server.config(), options).pipe(Scope.extend(connectionScope))
      const subscription = yield* connection.listen({ toolsListChanged: true })
      yield* Scope.close(connectionScope, Exit.void)
      const ended = yield* Effect.fork(Effect.either(Stream.runDrain(subscription.notifications)))
      yield* TestClock.adjust("1 minute")
      assert.strictEqual((yield* Fiber.join(ended))._tag, "Right")
      assert.strictEqual(yield* server.connections, 1)
    }))

  it.scoped("a legacy server has no listen: CapabilityError", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const connection = yield* ServerConnection.make(server.config(), options)
      assert.instanceOf(yield* Effect.flip(connection.listen({ toolsListChanged: true })), CapabilityError)
    }))
})

describe("a slow consumer of a subscription", () => {
  const watching = (uris: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const { connection, server } = yield* modern()
      const subscription = yield* connection.listen({ resourceSubscriptions: uris })
      return { server, subscription }
    })
  const drain = (subscription: Subscription.Subscription) =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      yield* subscription.close
      yield* Stream.runForEach(subscription.notifications, (n) => Effect.sync(() => seen.push(n.params?.uri)))
      return seen
    })

  it.scoped("loses repeats of a busy resource, never the only update of a quiet one (count)", () =>
    Effect.gen(function*() {
      const { server, subscription } = yield* watching(["demo://quiet", "demo://busy"])
      yield* server.publish("notifications/resources/updated", { uri: "demo://quiet" })
      for (let i = 0; i < Subscription.MAX_PENDING_NOTIFICATIONS + 10; i++) {
        yield* server.publish("notifications/resources/updated", { uri: "demo://busy" })
      }
      assert.strictEqual(subscription.pendingNotifications(), Subscription.MAX_PENDING_NOTIFICATIONS)
      assert.strictEqual(subscription.droppedNotifications(), 11)
      const seen = yield* drain(subscription)
      assert.strictEqual(seen.filter((uri) => uri === "demo://quiet").length, 1)
      assert.strictEqual(seen.length, Subscription.MAX_PENDING_NOTIFICATIONS)
    }))

  it.scoped("loses repeats of a busy resource, never the only update of a quiet one (bytes)", () =>
    Effect.gen(function*() {
      const { server, subscription } = yield* watching(["demo://quiet", "demo://busy"])
      const pad = "x".repeat(64 * 1024)
      yield* server.publish("notifications/resources/updated", { uri: "demo://quiet" })
      for (let i = 0; i < 100; i++) {
        yield* server.publish("notifications/resources/updated", { uri: "demo://busy", pad })
      }
      assert.isAtMost(subscription.pendingNotificationBytes(), Subscription.MAX_PENDING_NOTIFICATION_BYTES)
      assert.isBelow(subscription.pendingNotifications(), 100)
      assert.isAbove(subscription.droppedNotifications(), 0)
      const seen = yield* drain(subscription)
      assert.strictEqual(seen.filter((uri) => uri === "demo://quiet").length, 1)
      assert.strictEqual(seen.length + subscription.droppedNotifications(), 101)
    }))

  it.scoped("still receives one payload larger than the whole byte budget, without it evicting others", () =>
    Effect.gen(function*() {
      const { server, subscription } = yield* watching(["demo://small", "demo://huge"])
      yield* server.publish("notifications/resources/updated", { uri: "demo://small" })
      yield* server.publish("notifications/resources/updated", {
        uri: "demo://huge",
        pad: "x".repeat(Subscription.MAX_PENDING_NOTIFICATION_BYTES + 1)
      })
      assert.strictEqual(subscription.droppedNotifications(), 0)
      assert.deepStrictEqual(yield* drain(subscription), ["demo://small", "demo://huge"])
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

  it.scoped("a watch the server ended is forgotten: subscribing again opens a new listen", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ ...Scenarios.demo, era: "dual", subscriptions: true })
      const connection = yield* ServerConnection.make(server.config(), options)
      yield* connection.subscribeResource("demo://readme")
      yield* server.endListens
      yield* TestClock.adjust("1 second")
      yield* connection.subscribeResource("demo://readme")
      assert.strictEqual((yield* server.requests("subscriptions/listen")).length, 2)
    }))

  it.scoped("a URI whose watch is being re-opened answers after the replacement's acknowledgement", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ ...Scenarios.demo, era: "dual", subscriptions: true })
      const connection = yield* ServerConnection.make(server.config(), options)
      yield* connection.subscribeResource("demo://readme")
      yield* TestClock.adjust("2 seconds")
      yield* server.crash
      yield* Effect.yieldNow()
      const again = yield* Effect.fork(connection.subscribeResource("demo://readme"))
      yield* Effect.yieldNow()
      assert.isNull(again.unsafePoll(), "no answer while the stream is re-opening")
      yield* TestClock.adjust("200 millis")
      yield* Fiber.join(again)
      assert.strictEqual((yield* server.requests("subscriptions/listen")).length, 2)
    }))

  it.scoped("a URI whose replacement stream no longer names it fails with CapabilityError", () =>
    Effect.gen(function*() {
      const definition = { ...Scenarios.demo, era: "dual" as const, subscriptions: true }
      const server = yield* FakeServer.make(definition)
      const connection = yield* ServerConnection.make(server.config(), options)
      yield* connection.subscribeResource("demo://readme")
      ;(definition as { subscriptions: boolean }).subscriptions = false
      yield* TestClock.adjust("2 seconds")
      yield* server.crash
      yield* Effect.yieldNow()
      const again = yield* Effect.fork(connection.subscribeResource("demo://readme"))
      yield* Effect.yieldNow()
      assert.isNull(again.unsafePoll())
      yield* TestClock.adjust("200 millis")
      assert.instanceOf(yield* Effect.flip(Fiber.join(again)), CapabilityError)
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

describe("one shared listen stream per connection", () => {
  // The listen requests the server holds open: asked for, less those the client cancelled.
  const openListens = (server: FakeServer.FakeServer) =>
    Effect.map(
      Effect.all([server.requests("subscriptions/listen"), server.requests("notifications/cancelled")]),
      ([listens, cancelled]) => {
        const gone = new Set(cancelled.map((r) => r.params?.requestId))
        return listens.filter((r) => !gone.has(r.id)).length
      }
    )

  it.scoped("N subscriptions and watches hold one listen request, carrying the union of their filters", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* modern()
      const subscriptions = yield* Effect.all([
        connection.listen({ toolsListChanged: true }),
        connection.listen({ promptsListChanged: true }),
        connection.listen({ resourceSubscriptions: ["demo://a"] }),
        connection.listen({ resourceSubscriptions: ["demo://b"] })
      ], { concurrency: "unbounded" })
      yield* connection.subscribeResource("demo://c")
      yield* connection.subscribeResource("demo://d")
      assert.strictEqual(yield* openListens(server), 1)
      const listens = yield* server.requests("subscriptions/listen")
      const carried = listens[listens.length - 1]!.params!.notifications as Subscription.Filter
      assert.isTrue(carried.toolsListChanged)
      assert.isTrue(carried.promptsListChanged)
      assert.sameMembers([...carried.resourceSubscriptions!], ["demo://a", "demo://b", "demo://c", "demo://d"])
      // Each sees what it asked for, not the others' URIs.
      assert.deepStrictEqual(subscriptions[2]!.acknowledged, { resourceSubscriptions: ["demo://a"] })
      assert.deepStrictEqual(subscriptions[0]!.acknowledged, { toolsListChanged: true })
      assert.isTrue(subscriptions.every((s) => s.isActive()))
    }))

  it.scoped("a subscription the stream already covers joins it without a new request", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* modern()
      yield* connection.listen({ toolsListChanged: true })
      const second = yield* connection.listen({ toolsListChanged: true })
      assert.strictEqual((yield* server.requests("subscriptions/listen")).length, 1)
      assert.deepStrictEqual(second.acknowledged, { toolsListChanged: true })
    }))

  it.scoped("each notification reaches the subscriptions it concerns; one leaving keeps the others receiving", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* modern()
      const next = (subscription: Subscription.Subscription) =>
        Effect.map(
          Stream.runCollect(Stream.take(subscription.notifications, 1)),
          (chunk) => Chunk.toReadonlyArray(chunk).map((n) => n.params?.uri ?? n.method)
        )
      const tools = yield* connection.listen({ toolsListChanged: true })
      const scopeA = yield* Scope.make()
      const a = yield* Scope.extend(connection.listen({ resourceSubscriptions: ["demo://a"] }), scopeA)
      const b = yield* connection.listen({ resourceSubscriptions: ["demo://b"] })
      yield* server.publish("notifications/resources/updated", { uri: "demo://a" })
      assert.deepStrictEqual(yield* next(a), ["demo://a"])
      yield* server.publish("notifications/resources/updated", { uri: "demo://b" })
      assert.deepStrictEqual(yield* next(b), ["demo://b"])
      yield* server.setTools([])
      assert.deepStrictEqual(yield* next(tools), ["notifications/tools/list_changed"])
      // Nobody got another's notification.
      assert.deepStrictEqual([tools, a, b].map((s) => s.pendingNotifications()), [0, 0, 0])

      yield* Scope.close(scopeA, Exit.void)
      assert.isFalse(a.isActive())
      assert.isTrue(b.isActive() && tools.isActive())
      // The stream is re-opened without demo://a, in the background (the old one serves meanwhile).
      const carriesA = Effect.map(
        server.requests("subscriptions/listen"),
        (listens) =>
          (listens[listens.length - 1]!.params!.notifications as Subscription.Filter).resourceSubscriptions!
            .includes("demo://a")
      )
      for (let turn = 0; turn < 100 && (yield* carriesA); turn++) yield* Effect.yieldNow()
      assert.isFalse(yield* carriesA)
      for (let turn = 0; turn < 100 && (yield* openListens(server)) > 1; turn++) yield* Effect.yieldNow()
      assert.strictEqual(yield* openListens(server), 1)
      yield* server.publish("notifications/resources/updated", { uri: "demo://b" })
      assert.deepStrictEqual(yield* next(b), ["demo://b"])
    }))

  it.scoped("the last subscription out closes the stream", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* modern()
      const scope = yield* Scope.make()
      yield* Scope.extend(
        Effect.all([
          connection.listen({ toolsListChanged: true }),
          connection.listen({ resourceSubscriptions: ["demo://a"] })
        ]),
        scope
      )
      assert.strictEqual(yield* openListens(server), 1)
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(yield* openListens(server), 0)
      // A new subscription opens a new stream.
      yield* connection.listen({ toolsListChanged: true })
      assert.strictEqual(yield* openListens(server), 1)
    }))

  it.scoped("a joiner whose replacement stream is never acknowledged fails; the others stay on the old stream", () =>
    Effect.gen(function*() {
      const faults: Array<FakeServer.Fault> = []
      const { connection, server } = yield* modern({ faults })
      const tools = yield* connection.listen({ toolsListChanged: true })
      faults.push({ method: "subscriptions/listen", action: "silence" })
      const joiner = yield* Effect.fork(
        Effect.flip(connection.listen({ resourceSubscriptions: ["demo://a"] }, { ackTimeout: "3 seconds" }))
      )
      yield* TestClock.adjust("3 seconds")
      assert.instanceOf(yield* Fiber.join(joiner), RequestTimeoutError)
      assert.isTrue(tools.isActive())
      assert.strictEqual(yield* openListens(server), 1)
      yield* server.setTools([])
      const [first] = Chunk.toReadonlyArray(yield* Stream.runCollect(Stream.take(tools.notifications, 1)))
      assert.strictEqual(first!.method, "notifications/tools/list_changed")
    }))

  it.scoped("while a joiner's replacement stream waits for its acknowledgement, the old one still delivers", () =>
    Effect.gen(function*() {
      const faults: Array<FakeServer.Fault> = []
      const { connection, server } = yield* modern({ faults })
      const tools = yield* connection.listen({ toolsListChanged: true })
      faults.push({ method: "subscriptions/listen", action: "silence" })
      const joiner = yield* Effect.fork(connection.listen({ resourceSubscriptions: ["demo://a"] }))
      for (let turn = 0; turn < 100 && (yield* server.requests("subscriptions/listen")).length < 2; turn++) {
        yield* Effect.yieldNow()
      }
      assert.strictEqual((yield* server.requests("subscriptions/listen")).length, 2)
      yield* server.setTools([])
      const [first] = Chunk.toReadonlyArray(yield* Stream.runCollect(Stream.take(tools.notifications, 1)))
      assert.strictEqual(first!.method, "notifications/tools/list_changed")
      assert.isTrue(tools.isActive())
      yield* Fiber.interrupt(joiner)
    }))

  it.scoped("a server that ends the shared stream ends every subscription on it", () =>
    Effect.gen(function*() {
      const { connection, server } = yield* modern()
      const a = yield* connection.listen({ toolsListChanged: true })
      const b = yield* connection.listen({ resourceSubscriptions: ["demo://a"] })
      yield* server.endListens
      assert.strictEqual((yield* Effect.either(Stream.runDrain(a.notifications)))._tag, "Right")
      assert.strictEqual((yield* Effect.either(Stream.runDrain(b.notifications)))._tag, "Right")
      assert.isFalse(a.isActive() || b.isActive())
    }))

  it.scoped("the handshake era has no listen stream: resource subscriptions are requests", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ ...Scenarios.demo, subscriptions: true })
      const connection = yield* ServerConnection.make(server.config(), options)
      yield* Effect.forEach(["demo://a", "demo://b", "demo://c"], (uri) => connection.subscribeResource(uri))
      assert.strictEqual((yield* server.requests("resources/subscribe")).length, 3)
      assert.strictEqual((yield* server.requests("subscriptions/listen")).length, 0)
    }))
})
