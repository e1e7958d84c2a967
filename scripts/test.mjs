// `npm test`: every step runs, whatever an earlier one did (a red typecheck does not hide the
// conformance results, a red conformance set does not stop the unit tests), nothing is re-run,
// and the run fails when any step failed. Each step's output goes to `.test-logs/STEP.log`; the
// run prints one line per step, the end of the log of a step that failed, and last the totals
// (the unit tests plus one per other step): `tests: N passed, N failed, N skipped`.
//
//   node scripts/test.mjs [--stream] [step …]   (default: every step; names as in `steps` below;
//                                                --stream: the steps' output on the terminal)
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import { pathToFileURL } from "node:url"
import { envFor, extraVersions, nodeBinary, unavailable } from "./nodes.mjs"
import * as Runtimes from "./runtimes.mjs"
import { closingLine, summarizeFile } from "./test-summary.mjs"

/** Where each step's output is kept, and how much of a failed step's log the run prints. */
const logDirectory = ".test-logs"
const failedTailLines = 80

/** The unit tests on one Node version (`undefined`: the one running this script). */
const unitStep = (version) => {
  const results = `.vitest/results${version === undefined ? "" : `-${version}`}.json`
  const vitest = [
    "node_modules/vitest/vitest.mjs",
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile=${results}`
  ]
  return {
    name: version === undefined ? "unit" : `unit-node-${version}`,
    command: () => {
      if (version === undefined) return [process.execPath, ...vitest]
      const reason = unavailable()
      if (reason !== undefined) return { skipped: reason }
      const binary = nodeBinary(version)
      return { command: [binary, ...vitest], env: envFor(binary) }
    },
    before: () => Fs.rmSync(results, { force: true }),
    summary: (exitCode) => summarizeFile(results, exitCode)
  }
}

/**
 * The client and node suites on another runtime (`bun`, `deno`), vitest itself running on it,
 * without the tests tagged as not for it; `MCP_EFFECT_RUNTIME` names the runtime, which
 * test/Runtime.test.ts checks, so the step cannot pass on Node by mistake.
 */
const runtimeStep = (runtime) => {
  const results = `.vitest/results-${runtime}.json`
  return {
    name: `unit-${runtime}`,
    command: () => {
      const reason = Runtimes.unavailable()
      if (reason !== undefined) return { skipped: reason }
      return {
        command: [
          ...Runtimes.runtimes[runtime].vitest(Runtimes.runtimeBinary(runtime)),
          "run",
          "--project",
          "client",
          "--project",
          "node",
          `--testNamePattern=${Runtimes.excluding(runtime)}`,
          "--reporter=default",
          "--reporter=json",
          `--outputFile=${results}`
        ],
        env: { ...process.env, MCP_EFFECT_RUNTIME: runtime }
      }
    },
    before: () => Fs.rmSync(results, { force: true }),
    summary: (exitCode) => summarizeFile(results, exitCode)
  }
}

/**
 * The client in headless Chromium (Debian's `chromium`, installed by the tests when missing),
 * against fake servers of both eras; needs the build (the typecheck step's).
 */
const browserStep = (() => {
  const results = ".vitest/results-browser.json"
  return {
    name: "browser-chromium",
    command: [
      process.execPath,
      "node_modules/vitest/vitest.mjs",
      "run",
      "--config",
      "packages/client/vitest.browser.config.ts",
      "--reporter=default",
      "--reporter=json",
      // The config's root is the client package: an absolute path keeps the results here.
      `--outputFile=${process.cwd()}/${results}`
    ],
    before: () => Fs.rmSync(results, { force: true }),
    summary: (exitCode) => summarizeFile(results, exitCode)
  }
})()

/** The steps of `npm test`, in order: a name and its command. */
export const steps = [
  { name: "typecheck", command: ["npm", "run", "typecheck", "--silent"] },
  { name: "lint", command: ["npm", "run", "lint", "--silent"] },
  { name: "docs", command: ["npm", "run", "docs:check", "--silent"] },
  {
    name: "conformance-2025-11-25",
    command: ["node", "packages/conformance/dist/run.js", "--requirements", "2025-11-25"]
  },
  {
    name: "conformance-2026-07-28",
    command: ["node", "packages/conformance/dist/run.js", "--requirements", "2026-07-28"]
  },
  { name: "soak-smoke", command: ["node", "--expose-gc", "packages/soak/dist/main.js", "--smoke"] },
  { name: "consumer", command: ["node", "scripts/consumer-test.mjs"] },
  browserStep,
  unitStep(undefined),
  ...extraVersions.map(unitStep),
  runtimeStep("bun"),
  runtimeStep("deno")
]

/**
 * The environment a step runs in: no ANSI colours unless asked for (`FORCE_COLOR`), so that a
 * CI log — where `CI` alone turns vitest's colours on — reads as plain text, summary lines too.
 */
const plain = (env) => env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0" ? env : { ...env, NO_COLOR: "1" }

/**
 * A step's command line and environment. `command` is an argv, or a function giving an argv,
 * `{ command, env }`, or `{ skipped: reason }` (reported and counted as skipped, never silent);
 * a function that throws fails the step.
 */
const resolveCommand = (step) => {
  try {
    const given = typeof step.command === "function" ? step.command() : step.command
    const resolved = Array.isArray(given) ? { command: given, env: process.env } : given
    return resolved.command === undefined ? resolved : { ...resolved, env: plain(resolved.env ?? process.env) }
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) }
  }
}

/** Runs one step to its end (output streamed) and says how it went. */
const runStep = (step, options) => {
  step.before?.()
  const started = Date.now()
  const resolved = resolveCommand(step)
  if (resolved.skipped !== undefined) {
    return { summary: { passed: 0, failed: 0, skipped: 1, problems: [resolved.skipped] }, exitCode: 0, skipped: true }
  }
  if (resolved.failed !== undefined) {
    return { summary: { passed: 0, failed: 1, skipped: 0, problems: [resolved.failed] }, exitCode: 1, skipped: false }
  }
  const output = stepOutput(step, options)
  const run = spawnSync(resolved.command[0], resolved.command.slice(1), { stdio: output.stdio, env: resolved.env })
  output.close()
  const exitCode = run.status ?? 1
  const summary = step.summary?.(exitCode) ??
    { passed: exitCode === 0 ? 1 : 0, failed: exitCode === 0 ? 0 : 1, skipped: 0, problems: [] }
  return { summary, exitCode, skipped: false, seconds: (Date.now() - started) / 1000, log: output.log }
}

/**
 * Where a step's output goes: `options.stdio` when given ("inherit" streams it), otherwise a
 * log file of its own, kept for reading after the run.
 */
const stepOutput = (step, options) => {
  if (options.stdio !== undefined) return { stdio: options.stdio, close: () => {}, log: undefined }
  Fs.mkdirSync(logDirectory, { recursive: true })
  const log = `${logDirectory}/${step.name}.log`
  const fd = Fs.openSync(log, "w")
  return { stdio: ["ignore", fd, fd], close: () => Fs.closeSync(fd), log }
}

/** The last lines of a failed step's log, indented, for the run's own output. */
const logTail = (log) => {
  if (log === undefined || !Fs.existsSync(log)) return []
  const lines = Fs.readFileSync(log, "utf8").trimEnd().split("\n")
  return [
    `    --- the last ${Math.min(failedTailLines, lines.length)} of ${lines.length} lines of ${log} ---`,
    ...lines.slice(-failedTailLines).map((line) => `    ${line}`)
  ]
}

/**
 * Runs every step and adds up the verdicts: a step with a `summary` contributes its test
 * counts, any other step counts as one test.
 */
export const runSteps = (chosen, options = {}) => {
  const totals = { passed: 0, failed: 0, skipped: 0 }
  const verdicts = []
  for (const step of chosen) {
    options.onStart?.(step)
    const { exitCode, log, seconds = 0, skipped, summary } = runStep(step, options)
    totals.passed += summary.passed
    totals.failed += summary.failed
    totals.skipped += summary.skipped
    const ok = exitCode === 0 && summary.failed === 0
    const verdict = { name: step.name, ok, skipped, exitCode, seconds, problems: summary.problems, log, summary }
    verdicts.push(verdict)
    options.onVerdict?.(verdict)
  }
  return { totals, verdicts, ok: verdicts.every((verdict) => verdict.ok) }
}

const verdictLine = (verdict) =>
  verdict.skipped
    ? `  - ${verdict.name} (skipped)`
    : `  ${verdict.ok ? "\u2713" : "\u2717"} ${verdict.name} (exit ${verdict.exitCode}, ${
      verdict.seconds.toFixed(0)
    } s${unitCounts(verdict.summary)})`

/** A unit step's test counts (worded unlike the closing line, which alone carries the totals). */
const unitCounts = (summary) =>
  summary === undefined || summary.passed + summary.failed + summary.skipped <= 1
    ? ""
    : `; ${summary.passed} ok, ${summary.failed} failing, ${summary.skipped} skipped`

/** What the run prints as a step ends: its verdict, and the end of its log if it failed. */
export const progressLines = (verdict) => [
  verdictLine(verdict),
  ...(verdict.ok || verdict.skipped
    ? []
    : [...verdict.problems.map((problem) => `      ${problem}`), ...logTail(verdict.log)])
]

/** The report printed at the end, closing line last. */
export const report = ({ totals, verdicts }) =>
  [
    "",
    "steps:",
    ...verdicts.flatMap((verdict) => [verdictLine(verdict), ...verdict.problems.map((problem) => `      ${problem}`)]),
    closingLine(totals)
  ].join("\n")

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const stream = process.argv.includes("--stream")
  const names = process.argv.slice(2).filter((arg) => arg !== "--stream")
  const unknown = names.filter((name) => !steps.some((step) => step.name === name))
  if (unknown.length > 0) {
    console.error(`unknown step(s): ${unknown.join(", ")}; steps: ${steps.map((step) => step.name).join(", ")}`)
    process.exit(2)
  }
  const chosen = names.length === 0 ? steps : steps.filter((step) => names.includes(step.name))
  console.log(
    `npm test: ${chosen.length} step${chosen.length === 1 ? "" : "s"}; each step's output in ${logDirectory}/STEP.log`
  )
  const outcome = runSteps(chosen, {
    ...(stream ? { stdio: "inherit" } : {}),
    // A step that hangs is named in the log before CI's time runs out.
    onStart: (step) => console.log(`  \u25b8 ${step.name} started at ${new Date().toISOString().slice(11, 19)}`),
    onVerdict: (verdict) => console.log(progressLines(verdict).join("\n"))
  })
  console.log(report(outcome))
  process.exit(outcome.ok ? 0 : 1)
}
