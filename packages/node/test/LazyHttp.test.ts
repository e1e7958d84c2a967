import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { fakeServerBin } from "./paths.js"
import { withEverythingHttp } from "./peerProcess.js"

const here = Path.dirname(fileURLToPath(import.meta.url))

/** Runs `node [...nodeArgs] program <fake server> <url>` against a Streamable HTTP peer; its stdout. */
const runProgram = (program: string, nodeArgs: ReadonlyArray<string> = [], env: Record<string, string> = {}) =>
  withEverythingHttp((url) =>
    new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [...nodeArgs, Path.join(here, "programs", program), fakeServerBin, url],
        { timeout: 60_000, env: { ...process.env, ...env } },
        (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)))
      )
    )
  )

describe("undici is loaded with the first HTTP request", () => {
  it("not by the import nor by a stdio client; by an HTTP client", async () => {
    const output = await runProgram("undiciLoaded.mjs")
    assert.deepStrictEqual(output.trim().split("\n"), ["import false", "stdio false", "http true"])
  })

  it("the HTTP transports' connection code with the first HTTP connection, OAuth's only when used", async () => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-loads-"))
    try {
      const output = await runProgram(
        "transportsLoaded.mjs",
        ["--import", Path.join(here, "programs/recordLoads.mjs")],
        { RECORD_LOADS: Path.join(dir, "loads.txt") }
      )
      assert.deepStrictEqual(output.trim().split("\n"), [
        "import none",
        "stdio none",
        "http internal/http/streamable.js"
      ])
    } finally {
      Fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
