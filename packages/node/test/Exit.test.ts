import { assert, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { fakeServerBin } from "./paths.js"
import { withEverythingHttp } from "./peerProcess.js"

// Every kind of program exits by itself once its client is closed: nothing of the client's (a
// socket, a child, a timer, a worker) is left holding the event loop. How long an exit takes is
// measured by `npm run bench`, not asserted here (a loaded machine is slow; on Node 20 and 22 the
// exit also waits for V8 to finish compiling undici's WebAssembly parser). The old failure mode
// was a process that lived ~10 s on after close(), held by a timer.

const here = Path.dirname(fileURLToPath(import.meta.url))
const root = Path.resolve(here, "../../..")
const program = Path.join(here, "programs/closeAndExit.mjs")
const cli = Path.join(root, "packages/cli/bundle/mcp-effect.js")

interface Ended {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a program to its end (killed after a minute: a hang). */
const run = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}, input?: (child: ChildProcess) => void) =>
  new Promise<Ended>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
    input?.(child)
    setTimeout(() => child.kill("SIGKILL"), 60_000).unref()
  })

/** The process ended by itself (not killed), having printed `marker`. */
const expectExit = (ended: Ended, marker: string) => {
  assert.strictEqual(ended.code, 0, ended.stderr)
  assert.include(ended.stdout, marker)
}

/** {@link expectExit}, and after close() nothing but an `Immediate` was left holding the process. */
const expectNothingLeft = (ended: Ended) => {
  expectExit(ended, "closed")
  const left = JSON.parse(ended.stdout.trimEnd().split("\n").at(-1)!) as Array<string>
  assert.deepStrictEqual(left.filter((resource) => resource !== "Immediate"), [], ended.stdout)
}

describe("a closed client's process exits by itself", () => {
  it("the Promise facade over stdio", async () => {
    expectNothingLeft(await run([program, "facade", fakeServerBin]))
  })

  it("the Promise facade after a call validated in the JSON Schema worker", async () => {
    expectNothingLeft(await run([program, "validate", fakeServerBin]))
  })

  it("NodeMcpClient.layer", async () => {
    expectNothingLeft(await run([program, "layer", fakeServerBin]))
  })

  it("McpClientLive from a configuration file", async () => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-exit-"))
    const config = Path.join(dir, "mcp.json")
    Fs.writeFileSync(
      config,
      JSON.stringify({ mcpServers: { fake: { type: "stdio", command: process.execPath, args: [fakeServerBin] } } })
    )
    expectNothingLeft(await run([program, "live"], { MCP_CONFIG: config }))
  })

  it("the Promise facade over Streamable HTTP (undici's sockets) [not-on-deno: Deno keeps undici's closed sockets as handles a while]", async () => {
    await withEverythingHttp(async (url) => expectNothingLeft(await run([program, "http", url])))
  })

  it("the CLI, for --version and for a one-shot call", async () => {
    expectExit(await run([cli, "--version"]), "0.1.0")
    expectExit(await run([cli, "call", "add", "--args", "{\"a\":2,\"b\":3}"]), "5")
  })

  it("the fake server binary, when its stdin closes", async () => {
    const ended = await run([fakeServerBin], {}, (child) => setTimeout(() => child.stdin?.end(), 200))
    assert.strictEqual(ended.code, 0, ended.stderr)
  })
})
