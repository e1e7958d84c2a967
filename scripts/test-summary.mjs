// Prints one closing line for the whole vitest run: "tests: N passed, N failed, N skipped".
import fs from "node:fs"

const file = ".vitest/results.json"
if (!fs.existsSync(file)) {
  console.log("tests: 0 passed, 1 failed (no vitest results)")
  process.exit(1)
}
const results = JSON.parse(fs.readFileSync(file, "utf8"))
const skipped = (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0)
console.log(`tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`)
