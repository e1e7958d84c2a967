/**
 * A real `redis-server` for the tests: found on PATH, else installed with `apt-get` (the CI runs as
 * root on Debian); when neither works the test fails saying how to install it — never a skip.
 * Each server listens on a free loopback port with persistence off, in a directory of its own,
 * and is stopped (and its directory removed) when the scope closes.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"

export interface RedisServer {
  readonly port: number
  readonly url: string
}

const HOW_TO_INSTALL = "install it (Debian/Ubuntu: `apt-get install -y redis-server`; macOS: `brew install redis`) " +
  "so that `redis-server` is on PATH"

const onPath = (name: string): string | undefined =>
  (process.env.PATH ?? "").split(Path.delimiter).map((dir) => Path.join(dir, name)).find((file) => {
    try {
      Fs.accessSync(file, Fs.constants.X_OK)
      return true
    } catch {
      return false
    }
  })

let installed: string | undefined

/**
 * The path of `redis-server`, installed first when it is missing (the project's global setup
 * calls it once, so that no test's timeout covers an install).
 */
export const redisServerBinary = (): string => {
  if (installed !== undefined) return installed
  const found = onPath("redis-server")
  if (found !== undefined) return installed = found
  if (onPath("apt-get") === undefined) {
    throw new Error(`redis-server is not installed and apt-get is not available: ${HOW_TO_INSTALL}`)
  }
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  const waitForLock = ["-o", "DPkg::Lock::Timeout=600"]
  const install = () =>
    // Test files run in parallel workers: each waits for another's install to release dpkg's lock.
    ChildProcess.spawnSync("apt-get", [
      ...waitForLock,
      "install",
      "-y",
      "-q",
      "--no-install-recommends",
      "redis-server"
    ], {
      env,
      encoding: "utf8"
    })
  let result = install()
  if (result.status !== 0) {
    // A machine that never fetched the package lists knows no redis-server yet.
    ChildProcess.spawnSync("apt-get", [...waitForLock, "update", "-q"], { env, encoding: "utf8" })
    result = install()
  }
  const after = onPath("redis-server") ?? (Fs.existsSync("/usr/bin/redis-server") ? "/usr/bin/redis-server" : undefined)
  if (result.status !== 0 || after === undefined) {
    throw new Error(
      `redis-server is not installed and \`apt-get install -y redis-server\` failed (exit ${result.status}): ` +
        `${(result.stderr ?? "").trim().split("\n").slice(-3).join(" ")}. To run these tests, ${HOW_TO_INSTALL}`
    )
  }
  return installed = after
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = Net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as Net.AddressInfo
      server.close(() => resolve(port))
    })
  })

/** Whether a server answers `PING` on `port`. */
const pong = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = Net.connect(port, "127.0.0.1")
    let answer = ""
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1_000, () => done(false))
    socket.once("error", () => done(false))
    socket.on("data", (chunk) => {
      answer += chunk.toString("utf8")
      if (answer.includes("\r\n")) done(answer.startsWith("+PONG"))
    })
    socket.once("connect", () => socket.write("PING\r\n"))
  })

const start = async (): Promise<{ readonly server: RedisServer; readonly stop: () => Promise<void> }> => {
  const binary = redisServerBinary()
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-redis-"))
  const port = await freePort()
  const child = ChildProcess.spawn(
    binary,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: ["ignore", "pipe", "pipe"] }
  )
  let output = ""
  child.stdout.on("data", (chunk: Buffer) => output = (output + chunk.toString("utf8")).slice(-4_000))
  child.stderr.on("data", (chunk: Buffer) => output = (output + chunk.toString("utf8")).slice(-4_000))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
    await exited
    Fs.rmSync(dir, { recursive: true, force: true })
  }
  const deadline = Date.now() + 20_000
  while (!(await pong(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop()
      throw new Error(`redis-server did not answer PING on port ${port}:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { server: { port, url: `redis://127.0.0.1:${port}` }, stop }
}

/** A `redis-server` for the scope. */
export const redisServer: Effect.Effect<RedisServer, never, Scope.Scope> = Effect.map(
  Effect.acquireRelease(Effect.promise(start), ({ stop }) => Effect.promise(stop)),
  ({ server }) => server
)
