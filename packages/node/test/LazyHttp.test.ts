import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { fakeServerBin } from "./paths.js"
import { withEverythingHttp } from "./peerProcess.js"

const here = Path.dirname(fileURLToPath(import.meta.url))
const program = Path.join(here, "programs/whatLoads.mjs")

describe("loaded with first use", () => {
  it("Node loads the bundles; the HTTP transports' connection code with the first HTTP connection, which uses Node's own undici, not the package; OAuth's flows only when used [node-only: Node's module loading hooks (--import)]", async () => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-loads-"))
    try {
      const output = await withEverythingHttp((url) =>
        new Promise<string>((resolve, reject) =>
          execFile(
            process.execPath,
            ["--import", Path.join(here, "programs/recordLoads.mjs"), program, fakeServerBin, url],
            { timeout: 60_000, env: { ...process.env, RECORD_LOADS: Path.join(dir, "loads.txt") } },
            (
              error,
              stdout,
              stderr
            ) => (error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)))
          )
        )
      )
      assert.deepStrictEqual(output.trim().split("\n"), [
        "import bundles=true undici=false modules=none",
        "stdio bundles=true undici=false modules=none",
        "http bundles=true undici=false modules=streamable"
      ])
    } finally {
      Fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
