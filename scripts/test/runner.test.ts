import { assert, describe, it } from "@effect/vitest"
// @ts-expect-error: a plain ES module of the repo's scripts, without types
import { report, runSteps } from "../test.mjs"

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
    assert.match(report(outcome), /tests: 1 passed, 1 failed, 0 skipped\n {6}Tests {2}1 failed \| 1 passed \(2\)$/)
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
    assert.match(report(outcome), /Tests {2}1 failed \| 0 passed \| 1 skipped \(2\)$/)
  })
})
