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
 * `--command "node <dist/driver.js>"`, `--requirements 2025-11-25` when no scenario, suite or
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
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = Path.dirname(fileURLToPath(import.meta.url))
const packageDir = Path.resolve(here, "..")
const driverPath = Path.join(here, "driver.js")
const hookPath = Path.join(here, "node20-hook.js")

const defaultRevision = "2025-11-25"

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

/** The items of a top-level `key:` list of plain scalars in a simple YAML file. */
const yamlList = (file: string, key: string): ReadonlyArray<string> => {
  const items: Array<string> = []
  let inside = false
  for (const line of Fs.readFileSync(file, "utf8").split(/\r?\n/)) {
    if (/^\S/.test(line) && !line.startsWith("#")) inside = line.trim() === `${key}:`
    const item = inside ? /^\s+-\s+([^\s#]+)\s*(?:#.*)?$/.exec(line) : null
    if (item !== null) items.push(item[1]!.replace(/^["']|["']$/g, ""))
  }
  return items
}

/**
 * One scenario run as the referee saved it under the output directory
 * (`<scenario>-<timestamp>/{checks.json,stderr.txt}`).
 *
 * @since 0.1.0
 * @category models
 */
export interface SavedRun {
  readonly scenario: string
  readonly statuses: ReadonlyArray<string>
  /** The driver said it failed (or gave up) on stderr. */
  readonly driverFailed: boolean
}

const savedRuns = (outputDir: string, since: number): ReadonlyArray<SavedRun> => {
  const runs: Array<SavedRun> = []
  const visit = (relative: string): void => {
    const dir = Path.join(outputDir, relative)
    let entries: Array<Fs.Dirent>
    try {
      entries = Fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    if (entries.some((entry) => entry.isFile() && entry.name === "checks.json")) {
      const named = /^(.+)-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z$/.exec(
        relative.split(Path.sep).join("/")
      )
      if (named === null) return
      const [, scenario, date, hh, mm, ss, ms] = named
      if (Date.parse(`${date}T${hh}:${mm}:${ss}.${ms}Z`) < since) return
      const checks: unknown = JSON.parse(Fs.readFileSync(Path.join(dir, "checks.json"), "utf8"))
      const statuses = Array.isArray(checks)
        ? checks.map((check: unknown) =>
          typeof check === "object" && check !== null && "status" in check ? String(check.status) : "?"
        )
        : []
      let stderr = ""
      try {
        stderr = Fs.readFileSync(Path.join(dir, "stderr.txt"), "utf8")
      } catch {
        // No stderr saved: nothing to learn from it.
      }
      runs.push({
        scenario: scenario!,
        statuses,
        driverFailed: /\[mcp-effect driver\] (failed:|gave up)/.test(stderr)
      })
      return
    }
    for (const entry of entries) {
      if (entry.isDirectory()) visit(relative === "" ? entry.name : Path.join(relative, entry.name))
    }
  }
  visit("")
  return runs
}

/**
 * Scenarios the referee let pass that did not pass: with `--expected-failures` (and in
 * requirement-set runs) the referee looks only at FAILURE/WARNING checks, so a scenario whose
 * mock never heard from the client (`initialize` records its checks only when an `initialize`
 * request arrives; `http-standard-headers` marks every check SKIPPED) counts as passed, and so
 * does one where the driver itself failed after the checked request. Scenarios the baseline
 * expects to fail, and unscored ones, are left alone. Scenarios in `vacuous` (the baseline's
 * `vacuous:` list: the referee passes them with nothing checked and calls a `client:` entry for
 * them stale) are expected to check nothing; one that now passes for real is reported as stale.
 *
 * @since 0.1.0
 * @category verdicts
 */
export const unnoticed = (
  runs: ReadonlyArray<SavedRun>,
  options: {
    readonly scored: ReadonlySet<string> | undefined
    readonly expected: ReadonlySet<string>
    readonly vacuous: ReadonlySet<string>
  }
): ReadonlyArray<string> =>
  runs.flatMap((run) => {
    if (options.expected.has(run.scenario)) return []
    if (options.scored !== undefined && !options.scored.has(run.scenario)) return []
    if (run.statuses.some((status) => status === "FAILURE" || status === "WARNING")) return []
    const checked = run.statuses.includes("SUCCESS")
    if (options.vacuous.has(run.scenario)) {
      return checked && !run.driverFailed
        ? [`${run.scenario}: passes now; remove it from the baseline's vacuous: list`]
        : []
    }
    if (!checked) {
      return [`${run.scenario}: the referee checked nothing${run.driverFailed ? " (the driver failed)" : ""}`]
    }
    return run.driverFailed ? [`${run.scenario}: the referee's checks passed but the driver failed`] : []
  })

const runnerCheck = (args: ReadonlyArray<string>, outputDir: string, since: number): ReadonlyArray<string> => {
  try {
    const requirements = optionValue(args, "--requirements")
    const baseline = optionValue(args, "--expected-failures")
    const scored = requirements === undefined
      ? undefined
      : new Set(
        yamlList(Path.join(Path.dirname(Path.dirname(refereeCli())), "requirements", `${requirements}.yaml`), "client")
      )
    const expected = new Set(
      baseline === undefined ? [] : yamlList(baseline, "client").filter((entry) => !entry.includes(":"))
    )
    const vacuous = new Set(baseline === undefined ? [] : yamlList(baseline, "vacuous"))
    return unnoticed(savedRuns(outputDir, since), { scored, expected, vacuous })
  } catch (error) {
    return [`could not read the saved results: ${error instanceof Error ? error.message : String(error)}`]
  }
}

const main = (): void => {
  const started = Date.now() - 1_000
  const { args, outputDir } = refereeArgs(process.argv.slice(2))
  const nodeArgs = ["--import", pathToFileURL(hookPath).href, refereeCli(), "client", ...args]
  process.stderr.write(`[conformance] node ${nodeArgs.map(shellWord).join(" ")}\n`)
  const child = spawn(process.execPath, nodeArgs, { stdio: ["ignore", "pipe", "pipe"] })
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
