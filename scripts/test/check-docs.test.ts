import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const here = Path.dirname(fileURLToPath(import.meta.url))
const checker = Path.join(here, "..", "check-docs.mjs")
const fixture = (name: string) => Path.join(here, "fixtures", "docs", name)

/** Runs the checker on some files (asynchronously: a type-check takes seconds). */
const run = (...files: ReadonlyArray<string>) =>
  new Promise<{ readonly status: number; readonly lines: ReadonlyArray<string> }>((resolve) => {
    execFile(
      process.execPath,
      [checker, ...files],
      { cwd: here },
      (error, stdout) => resolve({ status: error === null ? 0 : Number(error.code), lines: stdout.trim().split("\n") })
    )
  })

describe("the docs' example checker", () => {
  // One type-check for every case (it costs seconds): only the broken examples are reported.
  it("fails on examples that do not compile, pointing at their lines in the markdown or the source", async () => {
    const { lines, status } = await run(fixture("broken.md"), fixture("good.md"), fixture("example.fixture.ts"))
    assert.deepStrictEqual(lines, [
      "fixtures/docs/broken.md:12:7 TS2322 Type 'number' is not assignable to type 'string'.",
      "fixtures/docs/example.fixture.ts:6:7 TS2322 Type 'string' is not assignable to type 'number'.",
      "docs: 4 examples type-checked, 0 marked no-check, 2 problems"
    ])
    assert.strictEqual(status, 1)
  })

  it("checks under plain strict and under exactOptionalPropertyTypes, naming the setting a problem is found by", async () => {
    const { lines, status } = await run(fixture("settings.md"))
    assert.deepStrictEqual(lines.filter((line) => !line.startsWith(" ")), [
      "fixtures/docs/settings.md:15:9 TS2322 (under strict only) Type 'string | undefined' is not assignable to type 'string'.",
      "fixtures/docs/settings.md:6:7 TS2375 (under exactOptionalPropertyTypes only) Type '{ label: undefined; }' is not assignable to type '{ readonly label?: string; }' with 'exactOptionalPropertyTypes: true'. Consider adding 'undefined' to the types of the target's properties.",
      "docs: 2 examples type-checked, 0 marked no-check, 2 problems"
    ])
    assert.strictEqual(status, 1)
  })

  it("skips no-check fragments and other languages, and passes when nothing is broken", async () => {
    const { lines, status } = await run(fixture("fragments.md"))
    assert.deepStrictEqual(lines, ["docs: 0 examples type-checked, 1 marked no-check, 0 problems"])
    assert.strictEqual(status, 0)
  })
})
