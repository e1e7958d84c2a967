import { assert, describe, it } from "@effect/vitest"
import type { ConnectionState } from "@mcp-effect/client/ConnectionState"
import * as McpClient from "@mcp-effect/client/McpClient"
import { ConnectionError } from "@mcp-effect/client/McpError"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"

/** A state as a short string: its tag, attempt and the cause's message. */
const show = (state: ConnectionState): string => {
  switch (state._tag) {
    case "Ready":
      return `Ready(${state.protocolVersion}, ${state.serverInfo.name})`
    case "Reconnecting":
      return `Reconnecting(${state.attempt}, ${state.cause?.message ?? "-"})`
    case "Failed":
      return `Failed(${state.cause.message})`
    default:
      return state._tag
  }
}

/**
 * The fake server's config whose next `refusals.count` openings fail, as a server that is
 * down would.
 */
const flaky = (server: FakeServer.FakeServer, extra: Partial<ServerConfig> = {}) => {
  const base = server.config({ name: "flaky" })
  const refusals = { count: 0 }
  const config: ServerConfig = {
    ...base,
    ...extra,
    transport: (sink, name) =>
      refusals.count > 0
        ? Effect.suspend(() => {
          refusals.count--
          return Effect.fail(new ConnectionError({ server: name, message: "connection refused" }))
        })
        : base.transport(sink, name)
  }
  return { config, refusals }
}

/**
 * The fake server's config whose transports log their opening and their teardown, which waits
 * for `released` as a stdio transport waits for its process's exit.
 */
const slowTeardown = (
  server: FakeServer.FakeServer,
  released: Deferred.Deferred<void>,
  extra: Partial<ServerConfig>
) => {
  const base = server.config({ name: "slow" })
  const log: Array<string> = []
  let opened = 0
  const config: ServerConfig = {
    ...base,
    ...extra,
    transport: (sink, name) =>
      Effect.gen(function*() {
        const n = ++opened
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => log.push(`teardown ${n} starts`)).pipe(
            Effect.zipRight(Deferred.await(released)),
            Effect.zipRight(Effect.sync(() => log.push(`teardown ${n} done`)))
          )
        )
        const transport = yield* base.transport(sink, name)
        log.push(`open ${n}`)
        return transport
      })
  }
  return { config, log }
}

const connect = (config: ServerConfig) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const scope = yield* Scope.make()
    const connection = yield* ServerConnection.make(config, {
      clientInfo: { name: "test-client", version: "1.0.0" },
      onNotification: () => {},
      onStateChange: (_, state) => seen.push(show(state))
    }).pipe(Scope.extend(scope))
    return { connection, seen, scope }
  })

const demo = "Ready(2025-11-25, mcp-effect-demo)"

describe("ConnectionState", () => {
  it.effect("without reconnect: Failed when the server dies, Reconnecting then Ready on the next request", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const { config } = flaky(server)
      const { connection, scope, seen } = yield* connect(config)
      assert.deepStrictEqual(seen, ["Connecting", demo])
      yield* server.crash
      yield* Effect.yieldNow()
      assert.deepStrictEqual(seen.slice(2), ["Failed(server crashed)"])
      assert.strictEqual(connection.currentState()._tag, "Failed")
      yield* connection.listTools()
      assert.deepStrictEqual(seen.slice(3), ["Reconnecting(1, server crashed)", demo])
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(seen.slice(5), ["Closed"])
    }))

  it.effect("a session re-opened on purpose (roots declared on a legacy session) is no failure", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const { connection, scope, seen } = yield* connect(server.config({ name: "roots" }))
      yield* connection.setRoots([{ uri: "file:///work", name: "work" }])
      yield* connection.listTools()
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      assert.deepStrictEqual(seen.filter((state) => state.startsWith("Failed")), [])
      assert.strictEqual(connection.currentState()._tag, "Ready")
      assert.strictEqual((yield* server.requests("initialize")).length, 2)
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("supervised: re-opens in the background, each attempt in the state, until Ready", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const { config, refusals } = flaky(server, { reconnect: { initialDelay: "1 second" } })
      const { scope, seen } = yield* connect(config)
      refusals.count = 2
      yield* server.crash
      for (let i = 0; i < 10 && seen.length < 6; i++) yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(seen, [
        "Connecting",
        demo,
        "Reconnecting(1, server crashed)",
        "Reconnecting(2, connection refused)",
        "Reconnecting(3, connection refused)",
        demo
      ])
      assert.strictEqual(yield* server.connections, 2)
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(seen.slice(6), ["Closed"])
    }))

  it.effect("supervised: Failed once the schedule ends", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const { config, refusals } = flaky(server, {
        reconnect: Schedule.spaced("1 second").pipe(Schedule.upTo("1 second"))
      })
      const { scope, seen } = yield* connect(config)
      refusals.count = 10
      yield* server.crash
      for (let i = 0; i < 5 && !seen.some((s) => s.startsWith("Failed")); i++) yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(seen.slice(2), [
        "Reconnecting(1, server crashed)",
        "Reconnecting(2, connection refused)",
        "Failed(connection refused)"
      ])
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("supervised: a dead session's teardown does not hold back the next opening; the close waits for it", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const released = yield* Deferred.make<void>()
      const { config, log } = slowTeardown(server, released, { reconnect: { initialDelay: "1 second" } })
      const { scope, seen } = yield* connect(config)
      yield* server.crash
      for (let i = 0; i < 10 && seen.length < 4; i++) yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(seen, ["Connecting", demo, "Reconnecting(1, server crashed)", demo])
      // Opened while the dead one's teardown still waits.
      assert.deepStrictEqual(log.filter((line) => !line.endsWith("starts")), ["open 1", "open 2"])
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      assert.isTrue(Option.isNone(yield* Fiber.poll(closing)))
      yield* Deferred.succeed(released, undefined)
      yield* Fiber.join(closing)
      assert.deepStrictEqual(log.filter((line) => !line.endsWith("starts")), [
        "open 1",
        "open 2",
        "teardown 1 done",
        "teardown 2 done"
      ])
    }))

  it.effect("a live session re-opened on purpose is torn down before the next one opens", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const released = yield* Deferred.make<void>()
      yield* Deferred.succeed(released, undefined)
      const { config, log } = slowTeardown(server, released, {})
      const { connection, scope } = yield* connect(config)
      yield* connection.setRoots([{ uri: "file:///work", name: "work" }])
      yield* connection.listTools()
      assert.deepStrictEqual(log, ["open 1", "teardown 1 starts", "teardown 1 done", "open 2"])
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("state.changes starts at the current state and ends after Closed", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const { connection, scope } = yield* connect(server.config({ name: "demo" }))
      const subscribed = yield* Deferred.make<void>()
      const collected = yield* Effect.fork(
        Stream.runCollect(Stream.tap(connection.state.changes, () => Deferred.succeed(subscribed, undefined)))
      )
      yield* Deferred.await(subscribed)
      yield* Scope.close(scope, Exit.void)
      const states = Chunk.toReadonlyArray(yield* Fiber.join(collected))
      assert.deepStrictEqual(states.map(show), [demo, "Closed"])
      assert.strictEqual((yield* connection.state.get)._tag, "Closed")
    }))

  it.scoped("McpClient passes onStateChange to every server, from Connecting on", () =>
    Effect.gen(function*() {
      const one = yield* FakeServer.make(Scenarios.demo)
      const two = yield* FakeServer.make(Scenarios.demo)
      const seen: Array<string> = []
      const client = yield* McpClient.make({
        servers: [one.config({ name: "one" }), two.config({ name: "two" })],
        onStateChange: (server, state) => seen.push(`${server}: ${state._tag}`)
      })
      assert.sameMembers(seen, ["one: Connecting", "one: Ready", "two: Connecting", "two: Ready"])
      assert.deepStrictEqual(client.servers.map((s) => s.currentState()._tag), ["Ready", "Ready"])
    }))

  it.effect("openings take turns: waiters take the session opened, a failed opening is tried again, an interrupted waiter blocks nobody", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const base = server.config({ name: "gated" })
      const gauge = { now: 0, max: 0, opened: 0, refusals: 0 }
      let gate = yield* Deferred.make<void>()
      const config: ServerConfig = {
        ...base,
        transport: (sink, name) =>
          Effect.gen(function*() {
            gauge.now++
            gauge.opened++
            gauge.max = Math.max(gauge.max, gauge.now)
            yield* Effect.ensuring(Deferred.await(gate), Effect.sync(() => gauge.now--))
            if (gauge.refusals > 0) {
              gauge.refusals--
              return yield* new ConnectionError({ server: name, message: "connection refused" })
            }
            return yield* base.transport(sink, name)
          })
      }
      const scope = yield* Scope.make()
      const connection = yield* ServerConnection.make(config, {
        clientInfo: { name: "test-client", version: "1.0.0" },
        onNotification: () => {},
        lazy: true
      }).pipe(Scope.extend(scope))
      const settle = Effect.forEach(Array.from({ length: 10 }), () => Effect.yieldNow(), { discard: true })

      // Three at once: one opening; the other two wait and take its session.
      const first = yield* Effect.forEach([1, 2, 3], () => Effect.fork(Effect.either(connection.connect)))
      yield* settle
      assert.strictEqual(gauge.opened, 1)
      yield* Deferred.succeed(gate, undefined)
      const results = yield* Effect.forEach(first, Fiber.join)
      assert.isTrue(results.every((r) => r._tag === "Right"))
      assert.deepStrictEqual([gauge.opened, gauge.max], [1, 1])

      // The server dies; two at once again, the first opening refused: the waiter opens in turn.
      yield* server.crash
      yield* settle
      gate = yield* Deferred.make<void>()
      gauge.refusals = 1
      const second = yield* Effect.forEach([1, 2], () => Effect.fork(Effect.either(connection.connect)))
      yield* settle
      assert.strictEqual(gauge.opened, 2)
      // A third waiter, interrupted while it waits.
      const interrupted = yield* Effect.fork(connection.connect)
      yield* settle
      yield* Fiber.interrupt(interrupted)
      yield* Deferred.succeed(gate, undefined)
      const [refused, opened] = yield* Effect.forEach(second, Fiber.join)
      assert.strictEqual(refused?._tag, "Left")
      assert.strictEqual(opened?._tag, "Right")
      assert.deepStrictEqual([gauge.opened, gauge.max], [3, 1])

      // Nothing is left holding the lock: the next opening (after another death) goes through.
      yield* server.crash
      yield* settle
      yield* connection.connect
      assert.deepStrictEqual([gauge.opened, gauge.max], [4, 1])
      yield* Scope.close(scope, Exit.void)
    }))
})
