import { assert, describe, it } from "@effect/vitest"
import * as EraCache from "@mcp-effect/client/EraCache"
import type * as ServerConfig from "@mcp-effect/client/ServerConfig"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as Stdio from "@mcp-effect/client/Stdio"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { options } from "./utils/connection.js"

/** The first `server/discover` is answered only after the client's discover timeout (2 s). */
const lateDiscover: FakeServer.Fault = { method: "server/discover", action: "delay", millis: 3_000, times: 1 }
/** How a real 2026-07-28-only server refuses an `initialize` sent without the modern headers. */
const missingHeader: FakeServer.Fault = {
  method: "initialize",
  action: "error",
  code: -32020,
  message: "Missing MCP-Protocol-Version header"
}

const methods = (server: FakeServer.FakeServer) =>
  Effect.map(server.received, (received) => received.flatMap((r) => r.method === undefined ? [] : [r.method]))

/** A connection to `server` over `transport`, the clock moved past the discover timeout. */
const connectLate = (
  server: FakeServer.FakeServer,
  transport: "memory" | "stdio",
  extra: Partial<ServerConnection.Options> = {}
) =>
  Effect.gen(function*() {
    const config = transport === "memory"
      ? server.config({ name: "fake" })
      : Stdio.config({ name: "fake", command: "fake-server" })
    const fiber = yield* Effect.fork(
      ServerConnection.make(config, options({ discoverTimeout: "2 seconds", ...extra })).pipe(
        Effect.provide(FakeServer.layerSpawner(server))
      )
    )
    yield* TestClock.adjust("2 seconds")
    return yield* Fiber.join(fiber)
  })

describe("era detection: a late server/discover answer", () => {
  for (const transport of ["memory", "stdio"] as const) {
    it.scoped(`${transport}: initialize refused with -32022 naming 2026-07-28 → probed again → modern`, () =>
      Effect.gen(function*() {
        const server = yield* FakeServer.make({ ...Scenarios.demo, era: "modern", faults: [lateDiscover] })
        const connection = yield* connectLate(server, transport)
        assert.strictEqual(connection.negotiated()!.era, "modern")
        assert.deepStrictEqual(
          (yield* methods(server)).filter((m) => m !== "notifications/cancelled"),
          ["server/discover", "initialize", "server/discover"]
        )
        yield* connection.callTool("echo", { message: "hi" })
      }))

    it.scoped(`${transport}: initialize refused with -32020 "Missing MCP-Protocol-Version header" → modern`, () =>
      Effect.gen(function*() {
        const server = yield* FakeServer.make({
          ...Scenarios.demo,
          era: "modern",
          faults: [lateDiscover, missingHeader]
        })
        const connection = yield* connectLate(server, transport)
        assert.strictEqual(connection.negotiated()!.era, "modern")
        assert.strictEqual((yield* server.requests("server/discover")).length, 2)
      }))
  }

  it.scoped("the second probe decides: silence again is an UnsupportedProtocolVersionError, no loop", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({
        ...Scenarios.demo,
        era: "modern",
        faults: [{ method: "server/discover", action: "silence" }, missingHeader]
      })
      const fiber = yield* Effect.fork(
        ServerConnection.make(
          server.config({ name: "fake", readTimeout: "10 seconds" }),
          options({ discoverTimeout: "2 seconds" })
        ).pipe(Effect.flip)
      )
      yield* TestClock.adjust("2 seconds")
      yield* TestClock.adjust("10 seconds")
      // Any further probe would wait on the clock: it is moved on, and nothing more is sent.
      yield* TestClock.adjust("1 minute")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "UnsupportedProtocolVersionError")
      assert.include(error.message, "initialize was refused with error -32020")
      assert.include(error.message, "then server/discover with silence")
      assert.deepStrictEqual(
        (yield* methods(server)).filter((m) => m !== "notifications/cancelled"),
        ["server/discover", "initialize", "server/discover"]
      )
    }))

  it.scoped("an initialize refused by a legacy server's own error is not probed again", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({
        ...Scenarios.demo,
        faults: [{ method: "initialize", action: "error", code: -32603, message: "boom" }]
      })
      const error = yield* Effect.flip(ServerConnection.make(server.config({ name: "fake" }), options()))
      assert.strictEqual(error._tag, "ServerError")
      assert.strictEqual((yield* server.requests("server/discover")).length, 1)
    }))
})

/** The fake over stdio (no process), through `cache`. */
const stdioWith = (
  server: FakeServer.FakeServer,
  cache: EraCache.Service,
  discoverTimeout: Duration.DurationInput = "2 seconds"
) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(
      ServerConnection.make(Stdio.config({ name: "fake", command: "fake-server" }), options({ discoverTimeout })).pipe(
        Effect.provide(FakeServer.layerSpawner(server)),
        Effect.provideService(EraCache.EraCache, cache)
      )
    )
    yield* TestClock.adjust(discoverTimeout)
    return yield* Fiber.join(fiber)
  })

const KEY = EraCache.stdioKey({ command: "fake-server" })
const silentLegacy: FakeServer.Definition = {
  ...Scenarios.demo,
  faults: [{ method: "server/discover", action: "silence" }]
}

describe("EraCache", () => {
  it.scoped("a legacy server silent on server/discover is probed once: the next connect sends initialize at once", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(silentLegacy)
      const cache = EraCache.makeMemory()
      const first = yield* stdioWith(server, cache)
      assert.strictEqual(first.negotiated()!.era, "legacy")
      assert.strictEqual(yield* cache.get(KEY), "legacy")
      const second = yield* stdioWith(server, cache)
      assert.strictEqual(second.negotiated()!.era, "legacy")
      assert.strictEqual((yield* server.requests("server/discover")).length, 1)
      assert.strictEqual((yield* server.requests("initialize")).length, 2)
    }))

  it.scoped("a modern server with nothing remembered is not written: the next connect probes the same", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ ...Scenarios.demo, era: "modern" })
      const cache = EraCache.makeMemory()
      const first = yield* stdioWith(server, cache)
      assert.strictEqual(first.negotiated()!.era, "modern")
      assert.strictEqual(yield* cache.get(KEY), undefined)
      const second = yield* stdioWith(server, cache)
      assert.strictEqual(second.negotiated()!.era, "modern")
      assert.strictEqual((yield* server.requests("server/discover")).length, 2)
      assert.strictEqual((yield* server.requests("initialize")).length, 0)
    }))

  it.scoped("remembered legacy, now a 2026-07-28-only server: detected again in the same connect", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({ ...Scenarios.demo, era: "modern", faults: [missingHeader] })
      const cache = EraCache.makeMemory()
      yield* cache.set(KEY, "legacy")
      const connection = yield* stdioWith(server, cache)
      assert.strictEqual(connection.negotiated()!.era, "modern")
      assert.deepStrictEqual(yield* methods(server), ["initialize", "server/discover"])
      assert.strictEqual(yield* cache.get(KEY), "modern")
    }))

  it.scoped("remembered legacy, initialize failing otherwise: forgotten, and the probe runs again", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({
        ...Scenarios.demo,
        faults: [{ method: "initialize", action: "error", code: -32603, message: "not yet", times: 1 }]
      })
      const cache = EraCache.makeMemory()
      yield* cache.set(KEY, "legacy")
      const connection = yield* stdioWith(server, cache)
      assert.strictEqual(connection.negotiated()!.era, "legacy")
      assert.deepStrictEqual(
        (yield* methods(server)).filter((m) => m !== "notifications/initialized"),
        ["initialize", "server/discover", "initialize"]
      )
      assert.strictEqual(yield* cache.get(KEY), "legacy")
    }))

  it.scoped("remembered modern, server/discover refused as an unknown method: legacy, remembered as such", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const cache = EraCache.makeMemory()
      yield* cache.set(KEY, "modern")
      const connection = yield* stdioWith(server, cache)
      assert.strictEqual(connection.negotiated()!.era, "legacy")
      assert.strictEqual(yield* cache.get(KEY), "legacy")
    }))

  it.scoped("a failure that is not about the era keeps the entry", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make({
        ...Scenarios.demo,
        faults: [{ method: "initialize", action: "crash" }]
      })
      const cache = EraCache.makeMemory()
      yield* cache.set(KEY, "legacy")
      const error = yield* Effect.flip(stdioWith(server, cache))
      assert.strictEqual(error._tag, "ConnectionError")
      assert.strictEqual(yield* cache.get(KEY), "legacy")
    }))

  it.scoped("an entry older than maxAge is not trusted: the server is probed again", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(silentLegacy)
      const cache = EraCache.makeMemory({ maxAge: "1 hour" })
      yield* stdioWith(server, cache)
      yield* TestClock.adjust("61 minutes")
      assert.strictEqual(yield* cache.get(KEY), undefined)
      yield* stdioWith(server, cache)
      assert.strictEqual((yield* server.requests("server/discover")).length, 2)
    }))

  it.scoped("protocol legacy and modern neither read nor write it; a config without a key is not remembered", () =>
    Effect.gen(function*() {
      const server = yield* FakeServer.make(Scenarios.demo)
      const cache = EraCache.makeMemory()
      const config: ServerConfig.ServerConfig = server.config({ name: "fake" })
      assert.strictEqual(config.eraCacheKey, undefined)
      yield* ServerConnection.make(config, options()).pipe(Effect.provideService(EraCache.EraCache, cache))
      yield* ServerConnection.make(
        Stdio.config({ name: "fake", command: "fake-server", protocol: "legacy" }),
        options()
      )
        .pipe(Effect.provide(FakeServer.layerSpawner(server)), Effect.provideService(EraCache.EraCache, cache))
      assert.strictEqual(yield* cache.get(KEY), undefined)
    }))

  it("keys: the same command line however quoted, another cwd or env another server; URLs normalized", () => {
    assert.strictEqual(
      EraCache.stdioKey({ command: "npx", args: ["-y", "server"] }),
      Stdio.config({ command: "npx", args: ["-y", "server"] }).eraCacheKey
    )
    assert.notStrictEqual(
      EraCache.stdioKey({ command: "node", args: ["s.js"], cwd: "/a" }),
      EraCache.stdioKey({ command: "node", args: ["s.js"], cwd: "/b" })
    )
    assert.strictEqual(
      EraCache.stdioKey({ command: "node", env: { A: "1", B: "2" } }),
      EraCache.stdioKey({ command: "node", env: { B: "2", A: "1" } })
    )
    assert.strictEqual(EraCache.urlKey("HTTP://Example.COM:80/mcp#x"), EraCache.urlKey("http://example.com/mcp"))
    assert.notStrictEqual(EraCache.urlKey("http://example.com/a/mcp"), EraCache.urlKey("http://example.com/b/mcp"))
  })
})
