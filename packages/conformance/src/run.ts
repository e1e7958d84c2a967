/**
 * Runs the official conformance referee against our driver (`npm run conformance`).
 *
 * ```
 * node packages/conformance/dist/run.js                          # --requirements 2025-11-25
 * node packages/conformance/dist/run.js --requirements 2026-07-28
 * node packages/conformance/dist/run.js --scenario sse-retry --spec-version 2025-11-25
 * ```
 *
 * Arguments are passed through to `conformance client`. The runner adds what is missing:
 * `--command "node <bundle/driver.js>"`, `--timeout 120000` (the driver is told its deadline), `--requirements 2025-11-25` when no scenario, suite or
 * requirement set is named, `--expected-failures expected-failures-<revision>.yml` when one
 * exists for the revision (`--no-expected-failures` leaves it out), and `-o <temporary dir>`.
 * The referee runs on Node 20 through the `node20-hook.js` resolve hook. Its output is streamed
 * as it comes; at the end the runner repeats the `Total: P passed, F failed, W warnings` line
 * (for a single scenario, built from the referee's `Passed:` line) and exits with the referee's
 * exit code — or 1 when its own check finds a scenario the referee let pass although nothing was
 * checked or the driver failed (see {@link unnoticed}).
 *
 * @since 0.1.0
 */
import { spawn, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { clientScenarios, readBaseline, savedRuns, unnoticed } from "./internal/verdicts.js"

const here = Path.dirname(fileURLToPath(import.meta.url))
const packageDir = Path.resolve(here, "..")
const driverPath = Path.join(packageDir, "bundle", "driver.js")
const hookPath = Path.join(here, "node20-hook.js")

const defaultRevision = "2025-11-25"

/** The referee's limit per scenario; the driver gives up a little before it. */
const scenarioTimeoutMs = 120_000

const refereeCli = (): string => {
  const manifest = createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json")
  return Path.join(Path.dirname(manifest), "dist", "index.js")
}

/**
 * The referee splits `--command` on spaces and runs it through a shell, so a word with shell
 * metacharacters or spaces is single-quoted (the split and re-join leave quotes intact).
 */
const shellWord = (word: string): string => /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`

/** The value of `--flag value` or `--flag=value`, if present. */
const optionValue = (args: ReadonlyArray<string>, ...flags: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    for (const flag of flags) {
      if (arg === flag) return args[i + 1]
      if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1)
    }
  }
  return undefined
}

const hasOption = (args: ReadonlyArray<string>, ...flags: ReadonlyArray<string>): boolean =>
  args.some((arg) => flags.some((flag) => arg === flag || arg.startsWith(`${flag}=`)))

/**
 * The full argument list for `conformance client`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const refereeArgs = (given: ReadonlyArray<string>): {
  readonly args: ReadonlyArray<string>
  readonly outputDir: string
} => {
  const noBaseline = given.includes("--no-expected-failures")
  const args = given.filter((arg) => arg !== "--no-expected-failures")
  if (!hasOption(args, "--command")) {
    args.push("--command", [process.execPath, driverPath].map(shellWord).join(" "))
  }
  // The referee's default 30 s per scenario leaves no margin when 25–39 drivers start at once on
  // a busy 2-core machine; a slow start is not a failure, a driver that never ends still is.
  if (!hasOption(args, "--timeout")) args.push("--timeout", String(scenarioTimeoutMs))
  if (!hasOption(args, "--requirements", "--scenario", "--suite")) {
    args.push("--requirements", defaultRevision)
  }
  const revision = optionValue(args, "--requirements") ?? optionValue(args, "--spec-version")
  if (!noBaseline && revision !== undefined && !hasOption(args, "--expected-failures")) {
    const baseline = Path.join(packageDir, `expected-failures-${revision}.yml`)
    if (Fs.existsSync(baseline)) args.push("--expected-failures", baseline)
  }
  let outputDir = optionValue(args, "-o", "--output-dir")
  if (outputDir === undefined) {
    outputDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-conformance-"))
    args.push("-o", outputDir)
  }
  return { args, outputDir }
}

// eslint-disable-next-line no-control-regex
const ansi = /\u001b\[[0-9;]*m/g

/** Watches the referee's output lines for its totals. */
const totals = () => {
  let total: string | undefined
  let passed: string | undefined
  const see = (line: string): void => {
    const plain = line.replace(ansi, "").trim()
    if (/^Total: \d+ passed, \d+ failed, \d+ warnings/.test(plain)) total = plain
    // Single-scenario mode prints `Passed: P/N, F failed, W warnings` instead.
    const single = /^Passed: (\d+)\/\d+, (\d+) failed, (\d+) warnings/.exec(plain)
    if (single !== null) passed = `Total: ${single[1]} passed, ${single[2]} failed, ${single[3]} warnings`
  }
  return { see, line: () => total ?? passed }
}

/** Copies a child stream to ours as it comes, and hands complete lines to `onLine`. */
const forward = (from: NodeJS.ReadableStream, to: NodeJS.WritableStream, onLine: (line: string) => void): void => {
  let pending = ""
  from.setEncoding("utf8")
  from.on("data", (chunk: string) => {
    to.write(chunk)
    const lines = (pending + chunk).split("\n")
    pending = lines.pop() ?? ""
    lines.forEach(onLine)
  })
  from.on("end", () => {
    if (pending !== "") onLine(pending)
  })
}

/** The client scenarios the referee runs for a requirement set, scored or not (`conformance list`). */
const listedScenarios = (requirements: string): ReadonlyArray<string> => {
  const listed = spawnSync(
    process.execPath,
    [...refereeNodeArgs(), "list", "--client", "--requirements", requirements],
    {
      encoding: "utf8"
    }
  )
  if (listed.status !== 0) throw new Error(`conformance list failed: ${listed.stderr.slice(0, 500)}`)
  return clientScenarios(listed.stdout)
}

const runnerCheck = (args: ReadonlyArray<string>, outputDir: string, since: number): ReadonlyArray<string> => {
  try {
    const requirements = optionValue(args, "--requirements")
    const scenario = optionValue(args, "--scenario")
    const scenarios = requirements !== undefined
      ? listedScenarios(requirements)
      : scenario !== undefined
      ? [scenario]
      : undefined
    const baseline = readBaseline(optionValue(args, "--expected-failures"))
    return unnoticed(savedRuns(outputDir, since), { scenarios, baseline })
  } catch (error) {
    return [`could not read the saved results: ${error instanceof Error ? error.message : String(error)}`]
  }
}

const refereeNodeArgs = (): ReadonlyArray<string> => ["--import", pathToFileURL(hookPath).href, refereeCli()]

const main = (): void => {
  const started = Date.now() - 1_000
  const { args, outputDir } = refereeArgs(process.argv.slice(2))
  const nodeArgs = [...refereeNodeArgs(), "client", ...args]
  process.stderr.write(`[conformance] node ${nodeArgs.map(shellWord).join(" ")}\n`)
  const timeout = Number(optionValue(args, "--timeout") ?? scenarioTimeoutMs)
  const child = spawn(process.execPath, nodeArgs, {
    stdio: ["ignore", "pipe", "pipe"],
    // The referee passes its environment on to the driver.
    env: { ...process.env, MCP_EFFECT_DRIVER_DEADLINE_MS: String(Math.max(1_000, timeout - 5_000)) }
  })
  const seen = totals()
  forward(child.stdout, process.stdout, seen.see)
  forward(child.stderr, process.stderr, seen.see)
  const relay = (signal: NodeJS.Signals) => () => child.kill(signal)
  process.on("SIGINT", relay("SIGINT"))
  process.on("SIGTERM", relay("SIGTERM"))
  child.on("error", (error) => {
    process.stderr.write(`[conformance] could not start the referee: ${error.message}\n`)
    process.exitCode = 1
  })
  child.on("close", (code, signal) => {
    const exitCode = code ?? 1
    process.stdout.write(`\n[conformance] results in ${outputDir}\n`)
    process.stdout.write(`${seen.line() ?? "Total: (the referee printed no totals)"}\n`)
    if (signal !== null) process.stdout.write(`[conformance] the referee was stopped by ${signal}\n`)
    process.stdout.write(`[conformance] referee exit code ${exitCode}\n`)
    const problems = runnerCheck(args, outputDir, started)
    if (problems.length > 0) {
      process.stdout.write(`[conformance] failed although the referee did not fail them:\n`)
      for (const problem of problems) process.stdout.write(`  \u2717 ${problem}\n`)
    }
    process.exitCode = exitCode !== 0 ? exitCode : problems.length > 0 ? 1 : 0
  })
}

main()
