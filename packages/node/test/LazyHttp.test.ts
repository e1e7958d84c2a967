import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { fakeServerBin } from "./paths.js"
import { withEverythingHttp } from "./peerProcess.js"

const here = Path.dirname(fileURLToPath(import.meta.url))
const program = Path.join(here, "programs/undiciLoaded.mjs")

describe("undici is loaded with the first HTTP request", () => {
  it("not by the import nor by a stdio client; by an HTTP client", async () => {
    const output = await withEverythingHttp((url) =>
      new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          [program, fakeServerBin, url],
          { timeout: 60_000 },
          (
            error,
            stdout,
            stderr
          ) => (error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)))
        )
      )
    )
    assert.deepStrictEqual(output.trim().split("\n"), ["import false", "stdio false", "http true"])
  })
})
