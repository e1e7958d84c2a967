import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
// @ts-expect-error: a plain ES module of the repo's scripts, without types
import { summarizeFile } from "../test-summary.mjs"

const here = Path.dirname(fileURLToPath(import.meta.url))
const root = Path.resolve(here, "../..")

interface Summary {
  readonly passed: number
  readonly failed: number
  readonly skipped: number
  readonly problems: ReadonlyArray<string>
}

/** Runs vitest for real over one fixture file and summarises its JSON report. */
const runFixture = (fixture: string): Summary & { readonly exitCode: number } => {
  const output = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-summary-")), "results.json")
  const run = spawnSync(
    process.execPath,
    [
      Path.join(root, "node_modules/vitest/vitest.mjs"),
      "run",
      "--config",
      Path.join(here, "fixtures/vitest.config.ts"),
      "--reporter=json",
      `--outputFile=${output}`
    ],
    { cwd: root, env: { ...process.env, FIXTURE: fixture }, encoding: "utf8" }
  )
  const exitCode = run.status ?? 1
  return { ...summarizeFile(output, exitCode) as Summary, exitCode }
}

describe("test-summary", () => {
  it("counts the tests of a file whose beforeAll failed as failed, not skipped", () => {
    const summary = runFixture("hook.fixture.ts")
    assert.strictEqual(summary.exitCode, 1)
    assert.deepStrictEqual([summary.passed, summary.failed, summary.skipped], [0, 2, 0])
    assert.match(summary.problems[0]!, /the hook fails/)
  })

  it("counts a file that failed to load as a failure", () => {
    const summary = runFixture("load.fixture.ts")
    assert.strictEqual(summary.exitCode, 1)
    assert.strictEqual(summary.failed, 1)
    assert.match(summary.problems[0]!, /does-not-exist/)
  })

  it("never reports an unhandled error as 0 failed", () => {
    const summary = runFixture("unhandled.fixture.ts")
    assert.strictEqual(summary.exitCode, 1)
    assert.strictEqual(summary.passed, 1)
    assert.isAtLeast(summary.failed, 1)
  })

  it("reports a green run as green, skips as skips", () => {
    const summary = runFixture("green.fixture.ts")
    assert.strictEqual(summary.exitCode, 0)
    assert.deepStrictEqual([summary.passed, summary.failed, summary.skipped], [1, 0, 1])
  })

  it("names each failed test with the first line of its failure", () => {
    const summary = runFixture("red.fixture.ts")
    assert.strictEqual(summary.exitCode, 1)
    assert.deepStrictEqual([summary.passed, summary.failed, summary.skipped], [1, 1, 0])
    assert.deepStrictEqual(summary.problems.length, 1)
    assert.match(summary.problems[0]!, /red\.fixture\.ts > red fails on purpose: .*one is not two/)
  })

  it("fails when there is no report at all", () => {
    const summary = summarizeFile(Path.join(Os.tmpdir(), "no-such-results.json"), 0) as Summary
    assert.strictEqual(summary.failed, 1)
  })
})
