import { assert, describe, it } from "@effect/vitest"
import { execFile, spawn } from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { everythingBin, fakeServerBin } from "./paths.js"
import { freePort, waitForPort } from "./peerProcess.js"

const here = Path.dirname(fileURLToPath(import.meta.url))
const program = Path.join(here, "programs/undiciLoaded.mjs")

describe("undici is loaded with the first HTTP request", () => {
  it("not by the import nor by a stdio client; by an HTTP client", async () => {
    const port = await freePort()
    const server = spawn(process.execPath, [everythingBin, "streamableHttp"], {
      env: { ...process.env, PORT: String(port) },
      stdio: "ignore"
    })
    try {
      await waitForPort(port)
      const output = await new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          [program, fakeServerBin, `http://127.0.0.1:${port}/mcp`],
          { timeout: 60_000 },
          (
            error,
            stdout,
            stderr
          ) => (error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)))
        )
      )
      assert.deepStrictEqual(output.trim().split("\n"), ["import false", "stdio false", "http true"])
    } finally {
      server.kill("SIGKILL")
    }
  })
})
