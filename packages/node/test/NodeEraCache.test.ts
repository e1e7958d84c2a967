/**
 * The file-backed `EraCache` and the facade's use of it: a real file in a temporary folder, and a
 * real legacy stdio server (the fake server's executable) that stays silent on `server/discover`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as EraCache from "@mcp-effect/client/EraCache"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as Stdio from "@mcp-effect/client/Stdio"
import { connect } from "@mcp-effect/node/Connect"
import * as NodeEraCache from "@mcp-effect/node/NodeEraCache"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fakeServerBin } from "./paths.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-era-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

const KEY = EraCache.stdioKey({ command: "npx", args: ["-y", "server", "--token", "secret-token"] })

describe("NodeEraCache", () => {
  it.scoped("remembers across instances in a 0600 file that holds no command line, written atomically", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "nested", "era.json")
      yield* NodeEraCache.make(file).set(KEY, "legacy")
      assert.strictEqual(yield* NodeEraCache.make(file).get(KEY), "legacy")
      assert.strictEqual(Fs.statSync(file).mode & 0o777, 0o600)
      assert.notInclude(Fs.readFileSync(file, "utf8"), "secret-token")
      assert.deepStrictEqual(Fs.readdirSync(Path.dirname(file)), ["era.json"])
      yield* NodeEraCache.make(file).invalidate(KEY)
      assert.strictEqual(yield* NodeEraCache.make(file).get(KEY), undefined)
    }))

  it.scoped("the read started when the cache is made is not trusted later: a lookup sees what was written since", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "era.json")
      const cache = NodeEraCache.make(file)
      // Its first read (under way, or done: the file did not exist) is not what a lookup returns.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      yield* NodeEraCache.make(file).set(KEY, "legacy")
      assert.strictEqual(yield* cache.get(KEY), "legacy")
      yield* NodeEraCache.make(file).invalidate(KEY)
      assert.strictEqual(yield* cache.get(KEY), undefined)
    }))

  it.scoped("changes made at once are all kept, in order, each written when its update returns", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "era.json")
      const cache = NodeEraCache.make(file)
      const keys = Array.from({ length: 200 }, (_, i) => EraCache.urlKey(`http://127.0.0.1:${2000 + i}/mcp`))
      yield* Effect.forEach(keys, (key, i) => cache.set(key, i % 2 === 0 ? "modern" : "legacy"), {
        concurrency: "unbounded",
        discard: true
      })
      // Set then invalidated in one burst: the later change wins.
      yield* Effect.all([cache.set(KEY, "modern"), cache.invalidate(KEY)], { concurrency: "unbounded" })
      const fresh = NodeEraCache.make(file)
      const eras = yield* Effect.forEach(keys, (key) => fresh.get(key), { concurrency: "unbounded" })
      assert.deepStrictEqual(eras, keys.map((_, i) => i % 2 === 0 ? "modern" : "legacy"))
      assert.strictEqual(yield* fresh.get(KEY), undefined)
      assert.deepStrictEqual(Fs.readdirSync(dir), ["era.json"])
    }))

  it.scoped("a full file drops its oldest entries when it is compacted", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "era.json")
      // 1,000 entries (the most a compaction keeps), the oldest first, before the test clock's now (0).
      Fs.writeFileSync(
        file,
        JSON.stringify(
          Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, { era: "legacy", at: i - 1000 }]))
        )
      )
      const cache = NodeEraCache.make(file)
      const keys = Array.from({ length: 1000 }, (_, i) => EraCache.urlKey(`http://127.0.0.1:${3000 + i}/mcp`))
      // As many changes as the snapshot has entries: the last one compacts the file.
      yield* Effect.forEach(keys, (key) => cache.set(key, "modern"), { discard: true })
      const entries = JSON.parse(Fs.readFileSync(file, "utf8")) as Record<string, unknown>
      assert.strictEqual(Object.keys(entries).length, 1000)
      assert.notProperty(entries, "k0")
      assert.notProperty(entries, "k999")
      assert.strictEqual(yield* NodeEraCache.make(file).get(keys[999]!), "modern")
    }))

  it.scoped("learning new eras appends: the file is rewritten only when its lines outnumber its entries", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "era.json")
      const cache = NodeEraCache.make(file)
      const keys = Array.from({ length: 300 }, (_, i) => EraCache.urlKey(`http://127.0.0.1:${4000 + i}/mcp`))
      let rewrites = 0
      let lastInode = -1
      for (const key of keys) {
        yield* cache.set(key, "legacy")
        const inode = Fs.statSync(file).ino
        if (inode !== lastInode) rewrites++
        lastInode = inode
      }
      // Created once, then compacted at 64, 128 and 256 entries (one rename each): not once per era.
      assert.isAtMost(rewrites, 4)
      const fresh = NodeEraCache.make(file)
      const eras = yield* Effect.forEach(keys, (key) => fresh.get(key))
      assert.deepStrictEqual(eras, keys.map(() => "legacy"))
      assert.deepStrictEqual(Fs.readdirSync(dir), ["era.json"])
    }))

  it.scoped("two caches on one file (two processes) see each other's eras, through compactions", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "era.json")
      const first = NodeEraCache.make(file)
      const second = NodeEraCache.make(file)
      const keys = Array.from({ length: 300 }, (_, i) => EraCache.urlKey(`http://127.0.0.1:${5000 + i}/mcp`))
      for (const [i, key] of keys.entries()) {
        const [writer, reader] = i % 2 === 0 ? [first, second] : [second, first]
        yield* writer.set(key, i % 3 === 0 ? "modern" : "legacy")
        assert.strictEqual(yield* reader.get(key), i % 3 === 0 ? "modern" : "legacy")
      }
      yield* second.invalidate(keys[0]!)
      assert.strictEqual(yield* first.get(keys[0]!), undefined)
      const eras = yield* Effect.forEach(keys, (key) => NodeEraCache.make(file).get(key))
      assert.deepStrictEqual(eras, keys.map((_, i) => i === 0 ? undefined : i % 3 === 0 ? "modern" : "legacy"))
    }))

  it.scoped("a line cut short (a writer that died) is skipped, and what follows it still counts", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "era.json")
      const cache = NodeEraCache.make(file)
      yield* cache.set(KEY, "legacy")
      Fs.appendFileSync(file, "\n[\"cut-short\",{\"era\":\"mod")
      assert.strictEqual(yield* cache.get(KEY), "legacy")
      const other = EraCache.urlKey("http://127.0.0.1:6000/mcp")
      yield* cache.set(other, "modern")
      for (const reader of [cache, NodeEraCache.make(file)]) {
        assert.strictEqual(yield* reader.get(KEY), "legacy")
        assert.strictEqual(yield* reader.get(other), "modern")
      }
    }))

  it.scoped("a file written by an earlier version (one JSON object) is read, then appended to", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "era.json")
      const digest = Crypto.createHash("sha256").update(KEY).digest("base64url")
      Fs.writeFileSync(file, JSON.stringify({ [digest]: { era: "modern", at: 0 } }), { mode: 0o600 })
      const cache = NodeEraCache.make(file)
      assert.strictEqual(yield* cache.get(KEY), "modern")
      const other = EraCache.urlKey("http://127.0.0.1:6001/mcp")
      yield* cache.set(other, "legacy")
      const fresh = NodeEraCache.make(file)
      assert.strictEqual(yield* fresh.get(KEY), "modern")
      assert.strictEqual(yield* fresh.get(other), "legacy")
    }))

  it.scoped("a corrupt file counts as empty and is replaced by the next write", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "era.json")
      const cache = NodeEraCache.make(file)
      for (const corrupt of ["{not json", "[1,2]", "null", JSON.stringify({ x: { era: "future", at: "then" } })]) {
        Fs.writeFileSync(file, corrupt)
        assert.strictEqual(yield* cache.get(KEY), undefined)
      }
      yield* cache.set(KEY, "modern")
      assert.strictEqual(yield* cache.get(KEY), "modern")
    }))

  it.scoped("a file that cannot be written changes nothing: get answers unknown, set does not fail", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      // A folder where the file should be: neither readable as JSON nor replaceable.
      const file = Path.join(dir, "era.json")
      Fs.mkdirSync(Path.join(file, "inside"), { recursive: true })
      const cache = NodeEraCache.make(file)
      yield* cache.set(KEY, "legacy")
      assert.strictEqual(yield* cache.get(KEY), undefined)
    }))
})

const silentLegacy = [
  process.execPath,
  fakeServerBin,
  "--faults",
  JSON.stringify([{ method: "server/discover", action: "silence" }])
]

/** Connects, calls echo, closes; the debug lines of the connection. */
const connectOnce = async (eraCache: string | false) => {
  const lines: Array<string> = []
  const keep = (line: string) => void lines.push(line)
  const client = await connect(silentLegacy, {
    eraCache,
    discoverTimeout: "1 second",
    logLevel: "Debug",
    logger: { debug: keep, info: keep, warn: keep, error: keep }
  })
  try {
    assert.strictEqual(client.servers[0]!.era, "legacy")
    await client.callTool("echo", { message: "hi" })
  } finally {
    await client.close()
  }
  return lines
}

describe("connect() with the era cache", () => {
  it.scoped("probes a silent legacy server once; the next connect opens with initialize at once", () =>
    Effect.gen(function*() {
      const file = Path.join(yield* tempDir, "era.json")
      const first = yield* Effect.promise(() => connectOnce(file))
      assert.isTrue(first.some((line) => line.includes("not a 2026-07-28 server (silence")))
      assert.isTrue(Fs.existsSync(file))
      const second = yield* Effect.promise(() => connectOnce(file))
      assert.isTrue(second.some((line) => line.includes("remembered as legacy")))
      assert.isFalse(second.some((line) => line.includes("not a 2026-07-28 server")))
    }))

  it.scoped("eraCache: false probes every time and writes nothing", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const previous = process.env.XDG_CONFIG_HOME
      process.env.XDG_CONFIG_HOME = dir
      try {
        const lines = yield* Effect.promise(() => connectOnce(false))
        assert.isTrue(lines.some((line) => line.includes("not a 2026-07-28 server (silence")))
        assert.deepStrictEqual(Fs.readdirSync(dir), [])
      } finally {
        if (previous === undefined) delete process.env.XDG_CONFIG_HOME
        else process.env.XDG_CONFIG_HOME = previous
      }
    }))
})

describe("the Effect API with NodeEraCache.layer", () => {
  it.scopedLive("NodeMcpClient.layer provided with the file layer remembers the era in that file", () =>
    Effect.gen(function*() {
      const file = Path.join(yield* tempDir, "era.json")
      const [command, ...args] = silentLegacy
      const config = Stdio.config({ name: "silent", command: command!, args })
      const client = NodeMcpClient.layer({ servers: [config], discoverTimeout: "1 second" }).pipe(
        Layer.provide(NodeEraCache.layer(file))
      )
      const era = yield* Effect.map(McpClient.McpClient, (c) => c.servers[0]!.negotiated()!.era).pipe(
        Effect.provide(client)
      )
      assert.strictEqual(era, "legacy")
      assert.strictEqual(yield* NodeEraCache.make(file).get(config.eraCacheKey!), "legacy")
    }))
})
