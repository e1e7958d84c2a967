import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")

describe("examples", () => {
  it("every example runs to completion (examples/run-all)", async () => {
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [path.join(root, "examples/dist/run-all.js")],
        { timeout: 120_000 },
        (error, stdout) => error === null ? resolve(stdout) : reject(new Error(stdout))
      )
    )
    assert.notInclude(output, "FAIL")
    assert.include(output, "PASS effect-client")
  })
})
