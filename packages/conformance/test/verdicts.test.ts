import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type { Baseline, SavedRun } from "../src/internal/verdicts.js"
import { clientScenarios, savedRuns, unnoticed } from "../src/internal/verdicts.js"

const none: Baseline = { expected: new Set(), vacuous: new Set(), skipped: new Set() }
const run = (scenario: string, statuses: ReadonlyArray<string>, driverFailed = false): SavedRun => ({
  scenario,
  checks: statuses.map((status, index) => ({ id: `check-${index}`, status })),
  driverFailed
})

describe("conformance verdicts", () => {
  it("fails an unscored scenario whose check failed (the referee's exit code ignores it)", () => {
    const problems = unnoticed([run("auth/dpop", ["SUCCESS", "FAILURE"])], { scenarios: ["auth/dpop"], baseline: none })
    assert.deepStrictEqual(problems, ["auth/dpop: check-1 FAILURE"])
  })

  it("fails a warning too", () => {
    assert.strictEqual(unnoticed([run("sse-retry", ["WARNING"])], { scenarios: undefined, baseline: none }).length, 1)
  })

  it("fails a scenario that saved no result, unless the baseline says it is skipped", () => {
    const scenarios = ["tools_call", "auth/dpop"]
    const runs = [run("tools_call", ["SUCCESS"])]
    assert.deepStrictEqual(unnoticed(runs, { scenarios, baseline: none }), [
      "auth/dpop: no result saved (the referee skipped it, or the run ended first)"
    ])
    assert.deepStrictEqual(unnoticed(runs, { scenarios, baseline: { ...none, skipped: new Set(["auth/dpop"]) } }), [])
  })

  it("fails a scenario where nothing was checked, or the driver failed", () => {
    assert.deepStrictEqual(unnoticed([run("initialize", ["SKIPPED"])], { scenarios: undefined, baseline: none }), [
      "initialize: the referee checked nothing"
    ])
    assert.deepStrictEqual(
      unnoticed([run("tools_call", ["SUCCESS"], true)], { scenarios: undefined, baseline: none }),
      [
        "tools_call: the referee's checks passed but the driver failed"
      ]
    )
  })

  it("accepts the baseline's expected failures and reports its stale entries", () => {
    const baseline = { ...none, expected: new Set(["a", "b:check-0"]) }
    assert.deepStrictEqual(
      unnoticed([run("a", ["FAILURE"]), run("b", ["FAILURE", "SUCCESS"])], { scenarios: undefined, baseline }),
      []
    )
    assert.deepStrictEqual(unnoticed([run("a", ["SUCCESS"])], { scenarios: undefined, baseline }), [
      "a: passes now; remove it from the baseline's client: list"
    ])
  })

  it("reads the client scenarios of a requirement set's listing, scored and unscored", () => {
    const listing = [
      "Required for 2026-07-28 (3 scenarios, frozen; run at the 2026-07-28 wire):",
      "",
      "Server scenarios (test against a server):",
      "  - tools-list",
      "",
      "Client scenarios (test against a client):",
      "  - tools_call",
      "  - auth/metadata-default",
      "",
      "Run and reported, but never scored:",
      "  extension (2):",
      "    - auth/dpop [client]",
      "    - tasks-lifecycle [server]"
    ].join("\n")
    assert.deepStrictEqual(clientScenarios(listing), ["tools_call", "auth/metadata-default", "auth/dpop"])
  })

  it("reads the runs the referee saved, nested scenario names included", () => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-verdicts-"))
    const saved = Path.join(dir, "auth", "dpop-2026-12-01T10-00-00-000Z")
    Fs.mkdirSync(saved, { recursive: true })
    Fs.writeFileSync(Path.join(saved, "checks.json"), JSON.stringify([{ id: "proof", status: "FAILURE" }]))
    Fs.writeFileSync(Path.join(saved, "stderr.txt"), "[mcp-effect driver] failed: boom\n")
    assert.deepStrictEqual(savedRuns(dir, 0), [{
      scenario: "auth/dpop",
      checks: [{ id: "proof", status: "FAILURE" }],
      driverFailed: true
    }])
  })
})
