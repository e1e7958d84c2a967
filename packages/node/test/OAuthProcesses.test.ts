/**
 * OAuth across real processes sharing one token file (`programs/oauthProcess.mjs`, on the built
 * packages): a restarted host refreshes an expired token without a browser, a rotated refresh
 * token is kept, processes racing on an expired token refresh it once, a crashed lock holder
 * blocks no one, a refused refresh token sends the user back to the browser, and an encrypted
 * file keeps no secret in the clear.
 */
import { assert, describe, it } from "@effect/vitest"
import * as FakeOAuthServer from "@mcp-effect/testing/FakeOAuthServer"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const program = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "programs/oauthProcess.mjs")

/** Tokens of the first run live this long (seconds); later ones long enough for any test. */
const FIRST_LIFETIME = 2

/**
 * A fake whose tokens are short-lived until `firstRunDone()`: whatever the first run ends up
 * keeping has expired once it has exited and {@link firstTokenExpired} has passed, and a later
 * refresh gives a token that outlives the test.
 */
const fakeServer = Effect.gen(function*() {
  let firstRun = true
  const server = yield* FakeOAuthServer.makeWith({
    expiresIn: () => firstRun ? FIRST_LIFETIME : 600,
    rotateRefreshTokens: true
  })
  return { server, firstRunDone: () => void (firstRun = false) }
})

interface Outcome {
  readonly code: number | null
  readonly browser: boolean
  readonly result: { readonly ok: boolean; readonly tag?: string; readonly message?: string }
  readonly stdout: string
  readonly stderr: string
}

interface Running {
  readonly ready: Promise<void>
  readonly go: () => void
  readonly done: Promise<Outcome>
}

const start = (args: ReadonlyArray<string>, key?: string): Running => {
  const env = { ...process.env }
  delete env.MCP_EFFECT_OAUTH_KEY
  const child = ChildProcess.spawn(process.execPath, [program, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    env: key === undefined ? env : { ...env, MCP_EFFECT_OAUTH_KEY: key }
  })
  let stdout = ""
  let stderr = ""
  let onReady = () => {}
  const ready = new Promise<void>((resolve) => onReady = resolve)
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8")
    if (stdout.split("\n").includes("ready")) onReady()
  })
  child.stderr.on("data", (chunk: Buffer) => stderr += chunk.toString("utf8"))
  const done = new Promise<Outcome>((resolve) =>
    child.on("close", (code) => {
      const lines = stdout.split("\n").filter((line) => line !== "")
      const last = lines.at(-1) ?? "{}"
      let result: Outcome["result"] = { ok: false, message: "no outcome" }
      try {
        result = JSON.parse(last)
      } catch {
        // no JSON outcome: the assertion shows stdout and stderr
      }
      resolve({ code, browser: lines.includes("browser"), result, stdout, stderr })
    })
  )
  return { ready, go: () => child.stdin.end("go\n"), done }
}

const run = (...args: ReadonlyArray<string>) => Effect.promise(() => start(args).done)
/** A run whose token file is encrypted with `key` (from the environment). */
const runWithKey = (key: string, ...args: ReadonlyArray<string>) => Effect.promise(() => start(args, key).done)

const succeeded = (outcome: Outcome) =>
  assert.isTrue(outcome.result.ok && outcome.code === 0, `${outcome.stdout}\n${outcome.stderr}`)

/** Waits out the first run's tokens: they were issued before the process that got them exited. */
const firstTokenExpired = Effect.sleep(`${FIRST_LIFETIME * 1000 + 200} millis`)

const tempFile = Effect.gen(function*() {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-processes-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true })))
  return Path.join(dir, "oauth.json")
})

const stored = (file: string): Record<string, Record<string, unknown>> => JSON.parse(Fs.readFileSync(file, "utf8"))

describe("OAuth across processes", () => {
  it.scopedLive("a restarted host refreshes an expired token silently, and keeps the rotated refresh token", () =>
    Effect.gen(function*() {
      const { firstRunDone, server } = yield* fakeServer
      const file = yield* tempFile
      const first = yield* run(server.mcpUrl, file, "interactive")
      succeeded(first)
      assert.isTrue(first.browser)
      assert.strictEqual(Fs.statSync(file).mode & 0o777, 0o600)
      // Kept by resource and issuer: the token (absolute expiry) and the registration.
      const kept = stored(file)
      const token = kept[`token:${server.mcpUrl}`]!
      assert.strictEqual(token.issuer, server.issuer)
      assert.isTrue(typeof token.expiresAt === "number" && token.expiresAt > Date.now() - 60_000)
      assert.isDefined(kept[`client:${server.issuer}`])
      // And the authorization server's metadata, for a refresh after a restart.
      assert.strictEqual((kept[`discovery:${server.mcpUrl}`]!.as as { issuer?: unknown }).issuer, server.issuer)

      firstRunDone()
      yield* firstTokenExpired
      const before = server.grants.length
      const second = yield* run(server.mcpUrl, file, "silent")
      succeeded(second)
      assert.isFalse(second.browser)
      assert.deepStrictEqual(server.grants.slice(before).map((g) => g.grant), ["refresh_token"])
      // Refresh tokens are single use here: the rotated one was kept, or the next refresh would fail.
      const rotated = stored(file)[`token:${server.mcpUrl}`]!
      assert.notStrictEqual(rotated.refreshToken, token.refreshToken)
      assert.notStrictEqual(rotated.accessToken, token.accessToken)
    }))

  it.scopedLive("processes racing on an expired token refresh it once, and all succeed", () =>
    Effect.gen(function*() {
      const { firstRunDone, server } = yield* fakeServer
      const file = yield* tempFile
      succeeded(yield* run(server.mcpUrl, file, "interactive"))
      firstRunDone()
      yield* firstTokenExpired
      const before = server.grants.length
      const racers = Array.from({ length: 4 }, () => start([server.mcpUrl, file, "silent", "--barrier"]))
      yield* Effect.promise(() => Promise.all(racers.map((r) => r.ready)))
      for (const racer of racers) racer.go()
      const outcomes = yield* Effect.promise(() => Promise.all(racers.map((r) => r.done)))
      for (const outcome of outcomes) succeeded(outcome)
      assert.deepStrictEqual(server.grants.slice(before).map((g) => g.grant), ["refresh_token"])
      assert.isFalse(Fs.existsSync(`${file}.lock`))
    }))

  it.scopedLive("a lock left by a crashed process blocks no one", () =>
    Effect.gen(function*() {
      const { firstRunDone, server } = yield* fakeServer
      const file = yield* tempFile
      succeeded(yield* run(server.mcpUrl, file, "interactive"))
      firstRunDone()
      yield* firstTokenExpired
      // A holder that died holding the lock (its expiry far ahead).
      const dead = ChildProcess.spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"])
      Fs.writeFileSync(
        `${file}.lock`,
        JSON.stringify({
          pid: Number(dead.stdout.toString()),
          host: Os.hostname(),
          token: "crashed",
          expiresAt: Date.now() + 3_600_000
        })
      )
      const before = server.grants.length
      succeeded(yield* run(server.mcpUrl, file, "silent"))
      assert.deepStrictEqual(server.grants.slice(before).map((g) => g.grant), ["refresh_token"])
      assert.isFalse(Fs.existsSync(`${file}.lock`))
    }))

  it.scopedLive("a refresh token the server refuses is removed, and the browser flow follows", () =>
    Effect.gen(function*() {
      const { firstRunDone, server } = yield* fakeServer
      const file = yield* tempFile
      succeeded(yield* run(server.mcpUrl, file, "interactive"))
      server.revokeRefreshTokens()
      firstRunDone()
      yield* firstTokenExpired

      // Without a browser: a typed failure, and the refused token is gone.
      let before = server.grants.length
      const silent = yield* run(server.mcpUrl, file, "silent")
      assert.strictEqual(silent.code, 1)
      assert.strictEqual(silent.result.tag, "AuthorizationRequiredError", silent.stdout)
      assert.deepStrictEqual(server.grants.slice(before).map((g) => g.grant), ["refresh_token"])
      assert.isUndefined(stored(file)[`token:${server.mcpUrl}`])

      // With one: the user signs in again (the refused refresh token is not tried again).
      before = server.grants.length
      const interactive = yield* run(server.mcpUrl, file, "interactive")
      succeeded(interactive)
      assert.isTrue(interactive.browser)
      assert.deepStrictEqual(server.grants.slice(before).map((g) => g.grant), ["authorization_code"])
    }))

  it.scopedLive("an encrypted token file keeps no secret in the clear, and a wrong key is a storage error", () =>
    Effect.gen(function*() {
      const { firstRunDone, server } = yield* fakeServer
      const file = yield* tempFile
      const key = Crypto.randomBytes(32).toString("base64")
      succeeded(yield* runWithKey(key, server.mcpUrl, file, "interactive"))
      firstRunDone()
      yield* firstTokenExpired
      succeeded(yield* runWithKey(key, server.mcpUrl, file, "silent"))
      const content = Fs.readFileSync(file, "utf8")
      assert.strictEqual(JSON.parse(content).version, 1)
      assert.isAbove(server.secrets.size, 0)
      for (const secret of server.secrets) assert.notInclude(content, secret)

      const wrong = yield* runWithKey(Crypto.randomBytes(32).toString("base64"), server.mcpUrl, file, "silent")
      assert.strictEqual(wrong.code, 1)
      assert.strictEqual(wrong.result.tag, "AuthError", wrong.stdout)
      assert.include(wrong.result.message, "cannot be decrypted")
      for (const secret of server.secrets) assert.notInclude(wrong.stdout + wrong.stderr, secret)
    }))
})
