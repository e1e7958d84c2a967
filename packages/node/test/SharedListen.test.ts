/**
 * Several subscriptions to one server over Streamable HTTP hold one long-lived stream, counted at
 * the server, in both eras; a per-origin limit on such streams fails clearly instead of letting
 * calls wait for a connection.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConnectionError } from "@mcp-effect/client/McpError"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Sse from "@mcp-effect/client/Sse"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import type * as Subscription from "@mcp-effect/client/Subscription"
import * as Target from "@mcp-effect/client/Target"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

const LISTEN = "subscriptions/listen"
const UPDATED = "notifications/resources/updated"
const options: ServerConnection.Options = { clientInfo: { name: "t", version: "1" }, onNotification: () => {} }

/** Polls until `check` holds; fails after 10 seconds. */
const until = (check: () => Effect.Effect<boolean>) =>
  Effect.gen(function*() {
    while (!(yield* check())) yield* Effect.sleep("10 millis")
  }).pipe(Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the condition never held") }))

/** Collects a subscription's notifications (their URI, else their method) as they arrive. */
const collect = (subscription: Subscription.Subscription) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    yield* Effect.forkScoped(
      Stream.runForEach(subscription.notifications, (n) =>
        Effect.sync(() => seen.push(typeof n.params?.uri === "string" ? n.params.uri : n.method)))
    )
    return seen
  })

describe("one listen stream per server connection over HTTP", () => {
  it.scopedLive("2026-07-28: 8 subscriptions hold one listen stream; each gets its own; the last out closes it", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({
        definition: { ...Scenarios.demo, era: "dual", subscriptions: true }
      })
      const connection = yield* ServerConnection.make(
        StreamableHttp.config({ name: "http", url: server.mcpUrl }),
        options
      )
      const scopes = yield* Effect.forEach(Array.from({ length: 8 }), () => Scope.make())
      const subscriptions = yield* Effect.forEach(scopes, (scope, i) =>
        Scope.extend(
          connection.listen(i === 0 ? { toolsListChanged: true } : { resourceSubscriptions: [`demo://r${i}`] }),
          scope
        ))
      const seen = yield* Effect.forEach(subscriptions, collect)
      const open = server.openPostStreams(LISTEN)
      yield* until(() => Effect.map(open, (n) => n === 1))
      assert.strictEqual(yield* server.openGetStreams, 0)
      assert.deepStrictEqual(subscriptions[3]!.acknowledged, { resourceSubscriptions: ["demo://r3"] })

      yield* server.fake.publish(UPDATED, { uri: "demo://r3" })
      yield* server.fake.setTools([])
      yield* until(() => Effect.succeed(seen[3]!.length === 1 && seen[0]!.length === 1))
      assert.deepStrictEqual(seen[3], ["demo://r3"])
      assert.deepStrictEqual(seen[0], ["notifications/tools/list_changed"])
      assert.deepStrictEqual(seen[5], [])

      // One leaves: the others keep receiving, still on one stream.
      yield* Scope.close(scopes[3]!, Exit.void)
      assert.isFalse(subscriptions[3]!.isActive())
      yield* until(() => Effect.map(open, (n) => n === 1))
      yield* server.fake.publish(UPDATED, { uri: "demo://r5" })
      yield* until(() => Effect.succeed(seen[5]!.length === 1))
      assert.deepStrictEqual(seen[5], ["demo://r5"])

      // The last one out closes the stream.
      yield* Effect.forEach(scopes, (scope) => Scope.close(scope, Exit.void), { discard: true })
      yield* until(() => Effect.map(open, (n) => n === 0))
      // Calls still answer (the tools were emptied above).
      assert.deepStrictEqual(yield* connection.listTools(), [])
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)))

  it.scopedLive("the handshake era: 8 resource subscriptions are POSTs, their updates come on the one GET stream", () =>
    Effect.gen(function*() {
      const updates: Array<unknown> = []
      const server = yield* FakeHttpServer.make({ definition: { ...Scenarios.demo, subscriptions: true } })
      const connection = yield* ServerConnection.make(
        StreamableHttp.config({ name: "http", url: server.mcpUrl }),
        {
          ...options,
          onNotification: (_, method, params) => method === UPDATED && updates.push(params?.uri)
        }
      )
      yield* Effect.forEach(Array.from({ length: 8 }), (_, i) => connection.subscribeResource(`demo://r${i}`))
      const all = yield* server.requests
      assert.strictEqual(all.filter((r) => r.method === "GET").length, 1)
      assert.strictEqual(yield* server.openGetStreams, 1)
      assert.strictEqual(all.filter((r) => (r.body as { method?: string } | undefined)?.method === LISTEN).length, 0)
      yield* server.notify(UPDATED, { uri: "demo://r4" })
      yield* until(() => Effect.succeed(updates.length === 1))
      assert.deepStrictEqual(updates, ["demo://r4"])
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)))
})

describe("maxStreamsPerOrigin", () => {
  it.scopedLive("a listen stream beyond the origin's limit fails with ConnectionError stream-limit, calls go on", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({
        definition: { ...Scenarios.demo, era: "dual", subscriptions: true }
      })
      const connect = (name: string) =>
        ServerConnection.make(
          StreamableHttp.config({ name, url: server.mcpUrl, maxStreamsPerOrigin: 1 }),
          options
        )
      const first = yield* connect("a")
      const second = yield* connect("b")
      yield* first.listen({ toolsListChanged: true })
      // A second subscription of the same connection shares its stream: no new slot.
      yield* first.listen({ resourceSubscriptions: ["demo://readme"] })
      const error = yield* Effect.flip(second.listen({ toolsListChanged: true }))
      assert.instanceOf(error, ConnectionError)
      assert.strictEqual((error as ConnectionError).reason, "stream-limit")
      assert.include(error.message, new URL(server.mcpUrl).origin)
      assert.include(error.message, "maxStreamsPerOrigin: 1")
      // Calls are not streams: they still answer.
      assert.isAbove((yield* second.listTools()).length, 0)
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)))

  it.scopedLive("the limit is a target option too (the facades' options)", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({
        definition: { ...Scenarios.demo, era: "dual", subscriptions: true }
      })
      const connect = (name: string) =>
        Effect.flatMap(
          Target.toConfig(server.mcpUrl, { name, maxStreamsPerOrigin: 1 }),
          (config) => ServerConnection.make(config, options)
        )
      const first = yield* connect("a")
      const second = yield* connect("b")
      yield* first.listen({ toolsListChanged: true })
      const error = yield* Effect.flip(second.listen({ toolsListChanged: true }))
      assert.strictEqual((error as ConnectionError).reason, "stream-limit")
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)))

  it.scopedLive("the slot is freed when the last subscription of a connection leaves", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({
        definition: { ...Scenarios.demo, era: "dual", subscriptions: true }
      })
      const connect = (name: string) =>
        ServerConnection.make(
          StreamableHttp.config({ name, url: server.mcpUrl, maxStreamsPerOrigin: 1 }),
          options
        )
      const first = yield* connect("a")
      const second = yield* connect("b")
      const scope = yield* Scope.make()
      yield* Scope.extend(first.listen({ toolsListChanged: true }), scope)
      yield* Scope.close(scope, Exit.void)
      yield* until(() => Effect.map(server.openPostStreams(LISTEN), (n) => n === 0))
      const subscription = yield* second.listen({ toolsListChanged: true })
      assert.isTrue(subscription.isActive())
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)))

  it.scopedLive("a handshake-era GET stream beyond the limit is not opened; calls work, subscribing fails", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: { ...Scenarios.demo, subscriptions: true } })
      const connect = (name: string) =>
        ServerConnection.make(
          StreamableHttp.config({ name, url: server.mcpUrl, maxStreamsPerOrigin: 1 }),
          options
        )
      yield* connect("a")
      const second = yield* connect("b")
      assert.strictEqual(yield* server.openGetStreams, 1)
      assert.isAbove((yield* second.listTools()).length, 0)
      // Its updates would have no stream to arrive on.
      const error = yield* Effect.flip(second.subscribeResource("demo://readme"))
      assert.strictEqual((error as ConnectionError).reason, "stream-limit")
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)))

  it.scopedLive("a legacy HTTP+SSE connection past the limit fails to connect with stream-limit", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const connect = (name: string) =>
        ServerConnection.make(Sse.config({ name, url: server.sseUrl, maxStreamsPerOrigin: 1 }), options)
      yield* connect("a")
      const error = yield* Effect.flip(connect("b"))
      assert.instanceOf(error, ConnectionError)
      assert.strictEqual((error as ConnectionError).reason, "stream-limit")
      assert.strictEqual(yield* server.openGetStreams, 1)
    }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)))
})
