import { assert, describe, it } from "@effect/vitest"
import * as NodeOAuth from "@mcp-effect/node/NodeOAuth"
import * as Effect from "effect/Effect"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

describe("NodeOAuth file storage", () => {
  it.effect("keeps values in a file only its owner can read (0600)", () =>
    Effect.gen(function*() {
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-oauth-"))
      const file = Path.join(dir, "nested", "tokens.json")
      const storage = NodeOAuth.makeFileStorage(file)
      assert.strictEqual(yield* storage.get("token:a"), undefined)
      yield* storage.set("token:a", { accessToken: "t" })
      yield* storage.set("client:b", { clientId: "c" })
      assert.strictEqual(Fs.statSync(file).mode & 0o777, 0o600)
      const reopened = NodeOAuth.makeFileStorage(file)
      assert.deepStrictEqual(yield* reopened.get("token:a"), { accessToken: "t" })
      yield* reopened.remove("token:a")
      assert.strictEqual(yield* storage.get("token:a"), undefined)
      assert.deepStrictEqual(yield* storage.get("client:b"), { clientId: "c" })
      Fs.rmSync(dir, { recursive: true, force: true })
    }))

  const tempFile = Effect.gen(function*() {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-oauth-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true })))
    return Path.join(dir, "oauth.json")
  })

  it.scoped("encrypts at rest with the host's key; another key, or none, is an OAuthStorageError", () =>
    Effect.gen(function*() {
      const file = yield* tempFile
      const key = Crypto.randomBytes(32)
      const storage = NodeOAuth.makeFileStorage(file, { encryptionKey: key })
      yield* storage.set("token:a", { accessToken: "secret-value" })
      const content = Fs.readFileSync(file, "utf8")
      assert.notInclude(content, "secret-value")
      assert.notInclude(content, "token:a")
      assert.include(JSON.parse(content), { format: "mcp-effect-oauth-storage", version: 1, cipher: "aes-256-gcm" })
      assert.strictEqual(Fs.statSync(file).mode & 0o777, 0o600)
      // The key as base64 reads it back.
      const reopened = NodeOAuth.makeFileStorage(file, { encryptionKey: key.toString("base64") })
      assert.deepStrictEqual(yield* reopened.get("token:a"), { accessToken: "secret-value" })

      const wrong = yield* Effect.flip(
        NodeOAuth.makeFileStorage(file, { encryptionKey: Crypto.randomBytes(32) }).get("x")
      )
      assert.strictEqual(wrong._tag, "OAuthStorageError")
      assert.include(wrong.message, "cannot be decrypted")
      const none = yield* Effect.flip(NodeOAuth.makeFileStorage(file).get("x"))
      assert.strictEqual(none._tag, "OAuthStorageError")
      assert.include(none.message, "no encryption key")
      const short = yield* Effect.flip(
        NodeOAuth.makeFileStorage(file, { encryptionKey: Crypto.randomBytes(16) }).get("x")
      )
      assert.include(short.message, "32 bytes")
      // A damaged file is refused too, not read as empty.
      const sealed = JSON.parse(content)
      Fs.writeFileSync(file, JSON.stringify({ ...sealed, data: Buffer.from("tampered").toString("base64") }))
      assert.strictEqual((yield* Effect.flip(reopened.get("token:a")))._tag, "OAuthStorageError")
    }))

  it.scoped("a plain file is read with a key, and sealed by the next write", () =>
    Effect.gen(function*() {
      const file = yield* tempFile
      Fs.writeFileSync(file, JSON.stringify({ "client:b": { clientId: "c" } }))
      const storage = NodeOAuth.makeFileStorage(file, { encryptionKey: Crypto.randomBytes(32) })
      assert.deepStrictEqual(yield* storage.get("client:b"), { clientId: "c" })
      yield* storage.set("token:a", { accessToken: "t" })
      assert.notInclude(Fs.readFileSync(file, "utf8"), "clientId")
      assert.deepStrictEqual(yield* storage.get("client:b"), { clientId: "c" })
    }))

  it.scopedLive("withLock: one holder at a time, a lock file naming its owner, removed by it", () =>
    Effect.gen(function*() {
      const file = yield* tempFile
      const storage = NodeOAuth.makeFileStorage(file, { lockWait: "200 millis" })
      const record = yield* storage.withLock!(
        "refresh:a",
        Effect.sync(() => JSON.parse(Fs.readFileSync(`${file}.lock`, "utf8")))
      )
      assert.strictEqual(record.pid, process.pid)
      assert.strictEqual(record.host, Os.hostname())
      assert.isTrue(typeof record.token === "string" && record.expiresAt > Date.now())
      assert.isFalse(Fs.existsSync(`${file}.lock`))
      // A live holder (this process, another token) is waited for, then the waiter gives up.
      Fs.writeFileSync(`${file}.lock`, JSON.stringify({ ...record, token: "other", expiresAt: Date.now() + 60_000 }))
      const blocked = yield* Effect.flip(storage.withLock!("refresh:a", Effect.void))
      assert.strictEqual(blocked._tag, "OAuthStorageError")
      assert.include(blocked.message, `held by pid ${process.pid}`)
      // An expired lock of another host is taken over.
      Fs.writeFileSync(`${file}.lock`, JSON.stringify({ ...record, host: "elsewhere", token: "old", expiresAt: 1 }))
      assert.strictEqual(yield* storage.withLock!("refresh:a", Effect.succeed("ran")), "ran")
      assert.isFalse(Fs.existsSync(`${file}.lock`))
      // So is a damaged lock file older than a lock's lifetime.
      Fs.writeFileSync(`${file}.lock`, "{\"pid\":")
      const old = new Date(Date.now() - 3_600_000)
      Fs.utimesSync(`${file}.lock`, old, old)
      assert.strictEqual(yield* storage.withLock!("refresh:a", Effect.succeed("ran")), "ran")
      assert.isFalse(Fs.existsSync(`${file}.lock`))
    }))

  it.scopedLive("withLock: a holder whose lock was taken over leaves the new holder's lock alone", () =>
    Effect.gen(function*() {
      const file = yield* tempFile
      const storage = NodeOAuth.makeFileStorage(file)
      const other = JSON.stringify({
        pid: process.pid,
        host: Os.hostname(),
        token: "new",
        expiresAt: Date.now() + 60_000
      })
      yield* storage.withLock!("refresh:a", Effect.sync(() => Fs.writeFileSync(`${file}.lock`, other)))
      assert.strictEqual(Fs.readFileSync(`${file}.lock`, "utf8"), other)
    }))

  it.scopedLive("withLock releases the lock when the effect fails", () =>
    Effect.gen(function*() {
      const file = yield* tempFile
      const storage = NodeOAuth.makeFileStorage(file)
      const failed = yield* Effect.flip(storage.withLock!("refresh:a", Effect.fail("boom" as const)))
      assert.strictEqual(failed, "boom")
      assert.isFalse(Fs.existsSync(`${file}.lock`))
    }))

  it.scopedLive("writers that share the file through different storages lose no entry", () =>
    Effect.gen(function*() {
      const file = yield* tempFile
      const writers = Array.from({ length: 4 }, () => NodeOAuth.makeFileStorage(file))
      yield* Effect.all(
        writers.flatMap((storage, w) => Array.from({ length: 5 }, (_, i) => storage.set(`k:${w}:${i}`, i))),
        { concurrency: "unbounded" }
      )
      const entries = JSON.parse(Fs.readFileSync(file, "utf8"))
      assert.strictEqual(Object.keys(entries).length, 20)
      assert.isFalse(Fs.existsSync(`${file}.write.lock`))
    }))
})
