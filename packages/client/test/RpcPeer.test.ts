import { assert, describe, it } from "@effect/vitest"
import { ConnectionError, RequestTimeoutError, ServerError } from "@mcp-effect/client/McpError"
import * as RpcPeer from "@mcp-effect/client/RpcPeer"
import type { TransportSink } from "@mcp-effect/client/Transport"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Scope from "effect/Scope"
import * as Supervisor from "effect/Supervisor"
import * as TestClock from "effect/TestClock"

type Message = Record<string, unknown>

/** A transport whose far side is the test: it sees what the peer sends and injects replies. */
const scripted = (options: Partial<RpcPeer.Options<never>> = {}) =>
  Effect.gen(function*() {
    const sent: Array<Message> = []
    const notifications: Array<[string, unknown]> = []
    let sink: TransportSink | undefined
    const peer = yield* RpcPeer.make({
      server: "test",
      defaultTimeoutMs: 1_000,
      onNotification: (method, params) => notifications.push([method, params]),
      onRequest: () => undefined,
      ...options,
      transport: (s) =>
        Effect.sync(() => {
          sink = s
          return { description: "scripted", send: (message) => Effect.sync(() => void sent.push(message as Message)) }
        })
    })
    const inject = (message: unknown) => sink!.onMessage(message)
    const lastId = () => sent.filter((m) => m.id !== undefined && m.method !== undefined).at(-1)!.id
    return { peer, sent, notifications, inject, lastId, sink: () => sink! }
  })

/** A transport whose answers to server requests wait at a gate, counting how many are in flight at once. */
const gated = (options: Partial<RpcPeer.Options<never>>) =>
  Effect.gen(function*() {
    const gate = yield* Deferred.make<void>()
    const answers: Array<Message> = []
    const inFlight = { now: 0, max: 0 }
    let sink: TransportSink | undefined
    yield* RpcPeer.make({
      server: "test",
      defaultTimeoutMs: 1_000,
      onNotification: () => {},
      onRequest: () => undefined,
      ...options,
      transport: (s) =>
        Effect.sync(() => {
          sink = s
          return {
            description: "gated",
            send: (message) =>
              Effect.suspend(() => {
                inFlight.max = Math.max(inFlight.max, ++inFlight.now)
                return Effect.ensuring(
                  Deferred.await(gate),
                  Effect.sync(() => {
                    inFlight.now--
                    answers.push(message as Message)
                  })
                )
              })
          }
        })
    })
    const drained = (count: number) =>
      Effect.gen(function*() {
        while (answers.length < count) yield* Effect.yieldNow()
        // Anything more would have been sent by now.
        for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      })
    return {
      inject: (message: unknown) => sink!.onMessage(message),
      open: Deferred.succeed(gate, void 0),
      backpressure: () => sink!.backpressure!,
      answers,
      inFlight,
      drained
    }
  })

const captureLogs = () => {
  const lines: Array<string> = []
  return {
    lines,
    layer: Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => lines.push(String(message))))
  }
}

describe("RpcPeer", () => {
  it.scoped("resolves a request with the result whose id matches", () =>
    Effect.gen(function*() {
      const t = yield* scripted()
      const fiber = yield* Effect.fork(t.peer.request("tools/list", undefined))
      yield* Effect.yieldNow()
      t.inject({ jsonrpc: "2.0", id: t.lastId(), result: { tools: [] } })
      assert.deepStrictEqual(yield* Fiber.join(fiber), { tools: [] })
    }))

  it.scoped("drops a response whose id type differs (\"1\" is not 1) and unsolicited responses", () =>
    Effect.gen(function*() {
      const t = yield* scripted()
      const fiber = yield* Effect.fork(t.peer.request("ping", undefined))
      yield* Effect.yieldNow()
      const id = t.lastId()
      assert.strictEqual(typeof id, "number")
      t.inject({ jsonrpc: "2.0", id: String(id), result: { wrong: true } })
      t.inject({ jsonrpc: "2.0", id: 999, result: { unsolicited: true } })
      yield* Effect.yieldNow()
      assert.isNull(fiber.unsafePoll())
      t.inject({ jsonrpc: "2.0", id, result: { right: true } })
      assert.deepStrictEqual(yield* Fiber.join(fiber), { right: true })
    }))

  it.scoped("decodes an error response into a ServerError keeping code, message and data", () =>
    Effect.gen(function*() {
      const t = yield* scripted()
      const fiber = yield* Effect.fork(Effect.flip(t.peer.request("tools/call", { name: "x" })))
      yield* Effect.yieldNow()
      t.inject({ jsonrpc: "2.0", id: t.lastId(), error: { code: -32602, message: "bad", data: { why: 1 } } })
      const error = yield* Fiber.join(fiber)
      assert.instanceOf(error, ServerError)
      assert.deepStrictEqual([error.code, error.message, error.data, error.method], [
        -32602,
        "bad",
        { why: 1 },
        "tools/call"
      ])
    }))

  it.scoped("times out with RequestTimeoutError and sends notifications/cancelled", () =>
    Effect.gen(function*() {
      const t = yield* scripted()
      const fiber = yield* Effect.fork(Effect.flip(t.peer.request("tools/call", { name: "slow" }, { timeoutMs: 500 })))
      yield* Effect.yieldNow()
      const id = t.lastId()
      yield* TestClock.adjust(499)
      assert.isNull(fiber.unsafePoll())
      yield* TestClock.adjust(1)
      const error = yield* Fiber.join(fiber)
      assert.instanceOf(error, RequestTimeoutError)
      assert.strictEqual(error.timeoutMs, 500)
      yield* Effect.yieldNow()
      const cancelled = t.sent.find((m) => m.method === "notifications/cancelled")
      assert.deepStrictEqual((cancelled?.params as Message | undefined)?.requestId, id)
    }))

  it.scoped("uses the default timeout, and an earlier per-call deadline wakes the watcher", () =>
    Effect.gen(function*() {
      const t = yield* scripted()
      const long = yield* Effect.fork(Effect.flip(t.peer.request("a", undefined)))
      yield* Effect.yieldNow()
      const short = yield* Effect.fork(Effect.flip(t.peer.request("b", undefined, { timeoutMs: 100 })))
      yield* Effect.yieldNow()
      yield* TestClock.adjust(100)
      assert.instanceOf(yield* Fiber.join(short), RequestTimeoutError)
      assert.isNull(long.unsafePoll())
      yield* TestClock.adjust(900)
      assert.instanceOf(yield* Fiber.join(long), RequestTimeoutError)
    }))

  it.scoped("an idle peer keeps no deadline fiber, and a request after that still times out", () =>
    Effect.gen(function*() {
      const supervisor = yield* Supervisor.track
      const t = yield* Effect.supervised(scripted(), supervisor)
      const answered = yield* Effect.fork(t.peer.request("a", undefined))
      yield* Effect.yieldNow()
      assert.strictEqual(
        (yield* supervisor.value).length,
        1,
        "the deadline fiber sleeps towards the request's deadline"
      )
      t.inject({ jsonrpc: "2.0", id: t.lastId(), result: {} })
      yield* Fiber.join(answered)
      // It wakes at that deadline, finds nothing pending, and ends.
      yield* TestClock.adjust(1_000)
      yield* Effect.yieldNow()
      assert.strictEqual((yield* supervisor.value).length, 0)
      const late = yield* Effect.fork(Effect.flip(t.peer.request("b", undefined, { timeoutMs: 200 })))
      yield* Effect.yieldNow()
      yield* TestClock.adjust(200)
      assert.instanceOf(yield* Fiber.join(late), RequestTimeoutError)
    }))

  it.scoped("peers on one clock share one deadline fiber, and each request still times out on time", () =>
    Effect.gen(function*() {
      const supervisor = yield* Supervisor.track
      const peers = yield* Effect.supervised(Effect.all([scripted(), scripted(), scripted()]), supervisor)
      const waits = yield* Effect.forEach(
        peers,
        (t, i) => Effect.fork(Effect.flip(t.peer.request("a", undefined, { timeoutMs: 300 + 100 * i })))
      )
      yield* Effect.yieldNow()
      assert.strictEqual((yield* supervisor.value).length, 1, "one watcher for the three peers")
      yield* TestClock.adjust(300)
      assert.instanceOf(yield* Fiber.join(waits[0]!), RequestTimeoutError)
      assert.isNull(waits[1]!.unsafePoll())
      yield* TestClock.adjust(100)
      assert.instanceOf(yield* Fiber.join(waits[1]!), RequestTimeoutError)
      assert.isNull(waits[2]!.unsafePoll())
      yield* TestClock.adjust(100)
      assert.instanceOf(yield* Fiber.join(waits[2]!), RequestTimeoutError)
      yield* Effect.yieldNow()
      assert.strictEqual((yield* supervisor.value).length, 0, "it ends when no peer has a request pending")
    }))

  it.scoped("a closed peer leaves the shared watcher; the others' deadlines still hold", () =>
    Effect.gen(function*() {
      const closing = yield* Scope.make()
      const first = yield* Scope.extend(scripted(), closing)
      const second = yield* scripted()
      const gone = yield* Effect.fork(Effect.flip(first.peer.request("a", undefined, { timeoutMs: 100 })))
      const kept = yield* Effect.fork(Effect.flip(second.peer.request("b", undefined, { timeoutMs: 500 })))
      yield* Effect.yieldNow()
      yield* Scope.close(closing, Exit.void)
      assert.strictEqual((yield* Fiber.join(gone))._tag, "ConnectionError")
      yield* TestClock.adjust(500)
      assert.instanceOf(yield* Fiber.join(kept), RequestTimeoutError)
    }))

  it.scoped("never sends notifications/cancelled for initialize", () =>
    Effect.gen(function*() {
      const t = yield* scripted()
      const fiber = yield* Effect.fork(Effect.flip(t.peer.request("initialize", {}, { cancellable: false })))
      yield* Effect.yieldNow()
      yield* TestClock.adjust(1_000)
      assert.instanceOf(yield* Fiber.join(fiber), RequestTimeoutError)
      yield* Effect.yieldNow()
      assert.isUndefined(t.sent.find((m) => m.method === "notifications/cancelled"))
    }))

  it.scoped("interrupting a request sends notifications/cancelled and drops its late response", () =>
    Effect.gen(function*() {
      const t = yield* scripted()
      const fiber = yield* Effect.fork(t.peer.request("tools/call", { name: "x" }))
      yield* Effect.yieldNow()
      const id = t.lastId()
      yield* Fiber.interrupt(fiber)
      yield* Effect.yieldNow()
      const cancelled = t.sent.filter((m) => m.method === "notifications/cancelled")
      assert.strictEqual(cancelled.length, 1)
      assert.strictEqual((cancelled[0]!.params as Message).requestId, id)
      t.inject({ jsonrpc: "2.0", id, result: {} })
    }))

  it.scoped("routes progress to its own request only, with a progressToken in _meta", () =>
    Effect.gen(function*() {
      const t = yield* scripted()
      const seenA: Array<number> = []
      const seenB: Array<number> = []
      const a = yield* Effect.fork(
        t.peer.request("tools/call", { name: "a", _meta: { keep: 1 } }, { onProgress: (p) => seenA.push(p.progress) })
      )
      yield* Effect.yieldNow()
      const idA = t.lastId()
      const b = yield* Effect.fork(
        t.peer.request("tools/call", { name: "b" }, { onProgress: (p) => seenB.push(p.progress) })
      )
      yield* Effect.yieldNow()
      const idB = t.lastId()
      const sentA = t.sent.find((m) => m.id === idA)!.params as Message
      assert.deepStrictEqual(sentA._meta, { keep: 1, progressToken: idA })
      t.inject({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: idA, progress: 1 } })
      t.inject({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: idB, progress: 7 } })
      t.inject({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "stranger", progress: 9 } })
      t.inject({ jsonrpc: "2.0", id: idA, result: {} })
      yield* Fiber.join(a)
      t.inject({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: idA, progress: 2 } })
      t.inject({ jsonrpc: "2.0", id: idB, result: {} })
      yield* Fiber.join(b)
      assert.deepStrictEqual(seenA, [1])
      assert.deepStrictEqual(seenB, [7])
    }))

  it.scoped("answers server requests with the exact id, method-not-found for what it does not serve", () =>
    Effect.gen(function*() {
      const t = yield* scripted({
        onRequest: (method) => method === "ping" ? Effect.succeed({}) : undefined
      })
      t.inject({ jsonrpc: "2.0", id: "abc", method: "ping" })
      t.inject({ jsonrpc: "2.0", id: 7, method: "sampling/createMessage", params: {} })
      yield* Effect.yieldNow()
      assert.deepStrictEqual(t.sent.find((m) => m.id === "abc"), { jsonrpc: "2.0", id: "abc", result: {} })
      const refused = t.sent.find((m) => m.id === 7)!
      assert.strictEqual((refused.error as Message).code, -32601)
    }))

  it.scoped("refuses server requests beyond the concurrency budget", () =>
    Effect.gen(function*() {
      const t = yield* scripted({
        maxConcurrentServerRequests: 2,
        onRequest: () => Effect.never
      })
      for (const id of [1, 2, 3]) t.inject({ jsonrpc: "2.0", id: `s${id}`, method: "roots/list" })
      yield* Effect.yieldNow()
      assert.deepStrictEqual(t.sent.map((m) => m.id), ["s3"])
      assert.strictEqual((t.sent[0]!.error as Message).code, -32603)
    }))

  it.scoped("a flood of 10,000 server requests: answers bounded in flight, a full queue pauses the transport, every request answered, one summary", () => {
    const logs = captureLogs()
    return Effect.gen(function*() {
      const t = yield* gated({
        maxConcurrentServerRequests: 4,
        maxQueuedRefusals: 100,
        onRequest: (method) => method === "roots/list" ? Effect.succeed({ roots: [] }) : undefined
      })
      const backpressure = t.backpressure()
      const flood = (id: number) =>
        t.inject({ jsonrpc: "2.0", id, method: id % 2 === 0 ? "roots/list" : "elicitation/create", params: {} })
      // A transport reads on until the queue is full: the 4 accepted (0, 2, 4, 6) and 100 refusals.
      let next = 0
      while (!backpressure.paused()) flood(next++)
      assert.strictEqual(next, 104)
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow()
      assert.strictEqual(t.inFlight.max, 4)
      yield* t.open
      // It reads on as the queue drains: paused again whenever it is full, never past it.
      while (next < 10_000) {
        yield* backpressure.resumed
        while (next < 10_000 && !backpressure.paused()) flood(next++)
      }
      yield* t.drained(10_000)
      assert.strictEqual(t.inFlight.max, 4)
      const byId = new Map(t.answers.map((a) => [a.id as number, a]))
      assert.strictEqual(byId.size, 10_000)
      assert.strictEqual(t.answers.length, 10_000)
      for (const id of [0, 2, 4, 6]) assert.deepStrictEqual(byId.get(id)!.result, { roots: [] })
      assert.deepStrictEqual(byId.get(1)!.error, { code: -32601, message: "Method not found" })
      assert.deepStrictEqual(byId.get(8)!.error, { code: -32603, message: "Too many concurrent requests" })
      // The budget is free again.
      t.inject({ jsonrpc: "2.0", id: "after", method: "roots/list" })
      yield* t.drained(10_001)
      assert.deepStrictEqual(t.answers.at(-1), { jsonrpc: "2.0", id: "after", result: { roots: [] } })
      assert.deepStrictEqual(logs.lines, [])
      yield* TestClock.adjust("5 seconds")
      assert.strictEqual(logs.lines.length, 1)
      assert.match(
        logs.lines[0]!,
        /^test: refused \d+ server requests in the last 5s \(\d+ over the concurrency budget, \d+ for methods this client does not serve\): elicitation\/create ×5000, roots\/list ×\d+$/
      )
    }).pipe(Effect.provide(logs.layer))
  })

  it.scoped("a transport that does not pause: refusals past 64 times the queue are dropped and counted", () => {
    const logs = captureLogs()
    return Effect.gen(function*() {
      const t = yield* gated({ maxConcurrentServerRequests: 1, maxQueuedRefusals: 10, onRequest: () => Effect.never })
      for (let id = 0; id < 1_000; id++) t.inject({ jsonrpc: "2.0", id, method: "roots/list" })
      yield* t.open
      // The one accepted never answers; 640 refusals are queued and answered.
      yield* t.drained(640)
      assert.deepStrictEqual(t.answers.map((a) => a.id), Array.from({ length: 640 }, (_, i) => i + 1))
      yield* TestClock.adjust("5 seconds")
      assert.deepStrictEqual(logs.lines, [
        "test: refused 999 server requests in the last 5s (999 over the concurrency budget; 359 of them dropped " +
        "unanswered, the transport not stopping for a full answer queue): roots/list ×999"
      ])
    }).pipe(Effect.provide(logs.layer))
  })

  it.scoped("queued refusals are bounded by the characters of their ids too", () =>
    Effect.gen(function*() {
      const t = yield* gated({ maxConcurrentServerRequests: 1 })
      // 1 Mi characters of ids fill the queue: 16 ids of 64 Ki characters.
      const ids = Array.from({ length: 30 }, (_, i) => `${i}`.padEnd(64 * 1024, "x"))
      let next = 0
      while (!t.backpressure().paused()) t.inject({ jsonrpc: "2.0", id: ids[next++], method: "sampling/createMessage" })
      assert.strictEqual(next, 16)
      yield* t.open
      yield* t.backpressure().resumed
      while (next < ids.length) t.inject({ jsonrpc: "2.0", id: ids[next++], method: "sampling/createMessage" })
      yield* t.drained(30)
      assert.deepStrictEqual(t.answers.map((a) => a.id), ids)
    }))

  it.scoped("summarises refusals per interval with server text escaped, one line per interval", () => {
    const logs = captureLogs()
    return Effect.gen(function*() {
      const t = yield* scripted({ maxConcurrentServerRequests: 1, onRequest: () => Effect.never })
      t.inject({ jsonrpc: "2.0", id: 0, method: "roots/list" })
      for (let id = 1; id <= 3; id++) t.inject({ jsonrpc: "2.0", id, method: "evil\u202e\nforged line" })
      yield* TestClock.adjust("5 seconds")
      t.inject({ jsonrpc: "2.0", id: 4, method: "x".repeat(100_000) })
      yield* TestClock.adjust("5 seconds")
      assert.deepStrictEqual(logs.lines, [
        "test: refused 3 server requests in the last 5s (3 over the concurrency budget): evil\\u202e\\u000aforged line ×3",
        `test: refused 1 server request in the last 5s (1 over the concurrency budget): ${"x".repeat(64)}… ×1`
      ])
      assert.strictEqual(t.sent.length, 4)
    }).pipe(Effect.provide(logs.layer))
  })

  it.scoped("a failing handler answers a constant error, never the host's message", () =>
    Effect.gen(function*() {
      const t = yield* scripted({ onRequest: () => Effect.die(new Error("secret host detail")) })
      t.inject({ jsonrpc: "2.0", id: 1, method: "roots/list" })
      yield* Effect.yieldNow()
      assert.deepStrictEqual(t.sent[0], { jsonrpc: "2.0", id: 1, error: { code: -32603, message: "Internal error" } })
    }))

  it.scoped("skips malformed messages and keeps working", () =>
    Effect.gen(function*() {
      const t = yield* scripted()
      t.inject("not an object")
      t.inject({ jsonrpc: "2.0", id: { bad: 1 }, method: "x" })
      t.inject({ jsonrpc: "2.0", id: 3 })
      t.inject(42)
      const fiber = yield* Effect.fork(t.peer.request("ping", undefined))
      yield* Effect.yieldNow()
      t.inject({ jsonrpc: "2.0", id: t.lastId(), result: {} })
      assert.deepStrictEqual(yield* Fiber.join(fiber), {})
    }))

  it.scoped("routes other notifications to the listener", () =>
    Effect.gen(function*() {
      const t = yield* scripted()
      t.inject({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
      t.inject([{ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } }])
      assert.deepStrictEqual(t.notifications.map(([m]) => m), [
        "notifications/tools/list_changed",
        "notifications/message"
      ])
    }))

  it.scoped("fails in-flight requests with ConnectionError when the connection dies", () =>
    Effect.gen(function*() {
      const t = yield* scripted()
      const fiber = yield* Effect.fork(Effect.flip(t.peer.request("tools/call", { name: "x" })))
      yield* Effect.yieldNow()
      t.sink().onClose(new ConnectionError({ server: "test", message: "process exited with code 1" }))
      const error = yield* Fiber.join(fiber)
      assert.instanceOf(error, ConnectionError)
      assert.isFalse(t.peer.isOpen())
      assert.instanceOf(yield* Effect.flip(t.peer.request("ping", undefined)), ConnectionError)
    }))
})
