import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const program = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "programs/warmConnectCounts.mjs")

// The CPU of a warm connect varies by half between runs on a shared machine; the run-loop steps
// and fibers of one do not (a fake undici dispatcher, in a process of its own). The bound holds
// what docs/performance.md's warm-connect rows removed (523 steps per connect before them, 404 after;
// undoing any one of them but the smallest crosses it). A new Effect version may move the count.
const MAX_STEPS = 410

describe("warm Streamable HTTP connect", () => {
  it("takes a bounded number of run-loop steps and fibers, the same every time [node-only: undici's global dispatcher, faked]", async () => {
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [program],
        { timeout: 60_000 },
        (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)))
      )
    )
    const figures = Object.fromEntries(output.trim().split("\n").map((line) => line.split(" ")))
    assert.strictEqual(figures.deterministic, "true")
    assert.isAtMost(Number(figures.steps), MAX_STEPS, `steps per warm connect: ${figures.steps}`)
    assert.isAtMost(Number(figures.fibers), 3, `fibers per warm connect: ${figures.fibers}`)
  })
})
