import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
// @ts-expect-error: a plain ES module of the repo's scripts, without types
import { progressLines, report, runSteps } from "../test.mjs"

const node = (code: string) => [process.execPath, "-e", code]

describe("npm test's step runner", () => {
  it("runs every step after a failing one, and fails the run", () => {
    const outcome = runSteps([
      { name: "red", command: node("process.exit(3)") },
      { name: "green", command: node("process.exit(0)") }
    ], { stdio: "ignore" })
    assert.isFalse(outcome.ok)
    assert.deepStrictEqual(
      outcome.verdicts.map((v: { name: string; ok: boolean; exitCode: number }) => [v.name, v.ok, v.exitCode]),
      [["red", false, 3], ["green", true, 0]]
    )
    assert.deepStrictEqual(outcome.totals, { passed: 1, failed: 1, skipped: 0 })
    assert.match(report(outcome), /\ntests: 1 passed, 1 failed, 0 skipped$/)
  })

  it("fails a step whose summary counts failures even when it exits 0", () => {
    const outcome = runSteps([{
      name: "unit",
      command: node("process.exit(0)"),
      summary: () => ({ passed: 5, failed: 1, skipped: 0, problems: ["a hook failed"] })
    }], { stdio: "ignore" })
    assert.isFalse(outcome.ok)
    assert.deepStrictEqual(outcome.totals, { passed: 5, failed: 1, skipped: 0 })
  })

  it("runs steps without ANSI colours unless FORCE_COLOR asks for them", () => {
    const saved = process.env.FORCE_COLOR
    delete process.env.FORCE_COLOR
    try {
      const outcome = runSteps(
        [{ name: "plain", command: node("process.exit(process.env.NO_COLOR === '1' ? 0 : 4)") }],
        {
          stdio: "ignore"
        }
      )
      assert.isTrue(outcome.ok)
    } finally {
      if (saved !== undefined) process.env.FORCE_COLOR = saved
    }
  })

  it("counts a step that cannot run here as skipped, loudly, and one whose set-up throws as failed", () => {
    const outcome = runSteps([
      { name: "elsewhere", command: () => ({ skipped: "needs linux-x64" }) },
      {
        name: "broken",
        command: () => {
          throw new Error("could not install")
        }
      }
    ], { stdio: "ignore" })
    assert.isFalse(outcome.ok)
    assert.deepStrictEqual(outcome.totals, { passed: 0, failed: 1, skipped: 1 })
    assert.match(report(outcome), /- elsewhere \(skipped\)\n {6}needs linux-x64/)
    assert.match(report(outcome), /\ntests: 0 passed, 1 failed, 1 skipped$/)
  })

  it("keeps a step's output in its log file and prints the end of it when the step fails", () => {
    const name = `runner-test-${process.pid}`
    try {
      const outcome = runSteps([{
        name,
        command: node(
          "for (let i = 1; i <= 100; i++) console.log('line ' + i); console.error('the cause'); process.exit(2)"
        )
      }])
      const [verdict] = outcome.verdicts
      assert.strictEqual(verdict.log, `.test-logs/${name}.log`)
      assert.include(Fs.readFileSync(verdict.log, "utf8"), "line 1\n")
      const printed = progressLines(verdict).join("\n")
      assert.match(printed, new RegExp(`\u2717 ${name} \\(exit 2, `))
      assert.include(printed, "    the cause")
      assert.include(printed, "    line 100")
      assert.notInclude(printed, "    line 1\n")
    } finally {
      Fs.rmSync(`.test-logs/${name}.log`, { force: true })
    }
  })

  it("prints one line for a step that passed, with a unit step's counts", () => {
    const outcome = runSteps([{
      name: "unit",
      command: node("process.exit(0)"),
      summary: () => ({ passed: 7, failed: 0, skipped: 2, problems: [] })
    }], { stdio: "ignore" })
    assert.deepStrictEqual(progressLines(outcome.verdicts[0]).length, 1)
    assert.match(progressLines(outcome.verdicts[0])[0], /\u2713 unit \(exit 0, \d+ s; 7 ok, 0 failing, 2 skipped\)$/)
  })
})
