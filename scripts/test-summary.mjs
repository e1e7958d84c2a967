// Reads vitest's JSON report and counts what failed, honestly: a test that did not run because
// its file failed (a failed beforeAll, a file that could not load) is a failure, not a skip, and
// a run that vitest reports unsuccessful (unhandled errors) is never "0 failed".
import * as Fs from "node:fs"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

/**
 * Counts of one vitest run: `{ passed, failed, skipped, problems }`, where `problems` names each
 * failed test (the first 20, with the first line of its failure) and each failure that is not a
 * failed test (a file that failed to load or whose hook failed, unhandled errors). `exitCode` is
 * vitest's own; a non-zero one is never summarised as a success.
 */
export const summarize = (results, exitCode) => {
  let passed = 0
  let failed = 0
  let skipped = 0
  const problems = []
  const failedTests = []
  for (const file of results?.testResults ?? []) {
    const tests = file.assertionResults ?? []
    const fileFailed = file.status === "failed"
    for (const test of tests) {
      if (test.status === "passed") passed++
      else if (test.status === "failed" || fileFailed) failed++
      else skipped++
      if (test.status === "failed") {
        failedTests.push(
          `${relative(file.name)} > ${test.fullName}: ${firstLine(test.failureMessages?.[0]) || "failed"}`
        )
      }
    }
    if (fileFailed && !tests.some((test) => test.status === "failed")) {
      if (tests.length === 0) failed++
      problems.push(`${relative(file.name)}: ${firstLine(file.message) || "the file failed"}`)
    }
  }
  problems.push(...failedTests.slice(0, maxNamedFailures))
  if (failedTests.length > maxNamedFailures) {
    problems.push(`… and ${failedTests.length - maxNamedFailures} more failed tests (the step's log has them all)`)
  }
  if (results?.success === false && failed === 0) {
    failed++
    problems.push("vitest reported the run unsuccessful (unhandled errors?) although no test failed")
  }
  if (exitCode !== 0 && failed === 0) {
    failed++
    problems.push(`vitest exited with code ${exitCode} although no test failed`)
  }
  return { passed, failed, skipped, problems }
}

/** How many failed tests a summary names one by one. */
const maxNamedFailures = 20

const relative = (file) => Path.relative(process.cwd(), String(file ?? "")) || String(file ?? "")

const firstLine = (text) => String(text ?? "").split("\n").find((line) => line.trim() !== "")?.trim().slice(0, 300)

/** The counts of the report in `file`, or a failure when there is none. */
export const summarizeFile = (file, exitCode) => {
  if (!Fs.existsSync(file)) return { passed: 0, failed: 1, skipped: 0, problems: [`no vitest results at ${file}`] }
  try {
    return summarize(JSON.parse(Fs.readFileSync(file, "utf8")), exitCode)
  } catch (error) {
    return { passed: 0, failed: 1, skipped: 0, problems: [`unreadable vitest results at ${file}: ${error}`] }
  }
}

/** The line every run ends with, alone on its line: `tests: N passed, N failed, N skipped`. */
export const closingLine = ({ passed, failed, skipped }) =>
  `tests: ${passed} passed, ${failed} failed, ${skipped} skipped`

// `node scripts/test-summary.mjs [results.json] [vitest exit code]`
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const summary = summarizeFile(process.argv[2] ?? ".vitest/results.json", Number(process.argv[3] ?? 0))
  for (const problem of summary.problems) console.log(`  \u2717 ${problem}`)
  console.log(closingLine(summary))
  process.exit(summary.failed > 0 ? 1 : 0)
}
