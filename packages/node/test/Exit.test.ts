import { assert, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { fakeServerBin } from "./paths.js"
import { withEverythingHttp } from "./peerProcess.js"

// Every kind of program exits by itself once its client is closed. The bound is generous (a
// loaded machine is slow); `npm run bench` reports the real figure. The old failure mode was a
// process that lived ~10 s on after close().
const boundMs = 2_000

const here = Path.dirname(fileURLToPath(import.meta.url))
const root = Path.resolve(here, "../../..")
const program = Path.join(here, "programs/closeAndExit.mjs")
const cli = Path.join(root, "packages/cli/bundle/mcp-effect.js")

interface Ended {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** From the last byte of stdout to the exit. */
  readonly lingeredMs: number
}

/** Runs a program to its end and measures how long it lived after its last output. */
const run = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}, input?: (child: ChildProcess) => void) =>
  new Promise<Ended>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env } })
    let stdout = ""
    let stderr = ""
    let last = Date.now()
    child.stdout.on("data", (chunk) => {
      stdout += chunk
      last = Date.now()
    })
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("exit", (code) => resolve({ code, stdout, stderr, lingeredMs: Date.now() - last }))
    input?.(child)
    setTimeout(() => child.kill("SIGKILL"), 60_000).unref()
  })

const expectPromptExit = (ended: Ended, marker: string) => {
  assert.strictEqual(ended.code, 0, ended.stderr)
  assert.include(ended.stdout, marker)
  assert.isBelow(ended.lingeredMs, boundMs, `the process lived ${ended.lingeredMs} ms after its last output`)
}

describe("a closed client's process exits at once", () => {
  it("the Promise facade over stdio", async () => {
    expectPromptExit(await run([program, "facade", fakeServerBin]), "closed")
  })

  it("the Promise facade after a call validated in the JSON Schema worker", async () => {
    expectPromptExit(await run([program, "validate", fakeServerBin]), "closed")
  })

  it("NodeMcpClient.layer", async () => {
    expectPromptExit(await run([program, "layer", fakeServerBin]), "closed")
  })

  it("McpClientLive from a configuration file", async () => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-exit-"))
    const config = Path.join(dir, "mcp.json")
    Fs.writeFileSync(
      config,
      JSON.stringify({ mcpServers: { fake: { type: "stdio", command: process.execPath, args: [fakeServerBin] } } })
    )
    expectPromptExit(await run([program, "live"], { MCP_CONFIG: config }), "closed")
  })

  it("the Promise facade over Streamable HTTP (undici's sockets)", async () => {
    await withEverythingHttp(async (url) => expectPromptExit(await run([program, "http", url]), "closed"))
  })

  it("the CLI, for --version and for a one-shot call", async () => {
    expectPromptExit(await run([cli, "--version"]), "0.1.0")
    expectPromptExit(await run([cli, "call", "add", "--args", "{\"a\":2,\"b\":3}"]), "5")
  })

  it("the fake server binary, when its stdin closes", async () => {
    const ended = await run([fakeServerBin], {}, (child) => setTimeout(() => child.stdin?.end(), 200))
    assert.strictEqual(ended.code, 0, ended.stderr)
    assert.isBelow(ended.lingeredMs, boundMs + 200)
  })
})
