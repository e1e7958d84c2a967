/**
 * How the conformance runner reads the referee's saved results: which failures the referee's
 * exit code does not show.
 *
 * @internal
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

/** The items of a top-level `key:` list of plain scalars in a simple YAML file. */
export const yamlList = (file: string, key: string): ReadonlyArray<string> => {
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
  readonly checks: ReadonlyArray<{ readonly id: string; readonly status: string }>
  /** The driver said it failed (or gave up) on stderr. */
  readonly driverFailed: boolean
}

const readChecks = (file: string): SavedRun["checks"] => {
  const checks: unknown = JSON.parse(Fs.readFileSync(file, "utf8"))
  if (!Array.isArray(checks)) return []
  return checks.map((check: unknown) => {
    const fields = typeof check === "object" && check !== null ? check as Record<string, unknown> : {}
    return { id: String(fields.id ?? "?"), status: String(fields.status ?? "?") }
  })
}

export const savedRuns = (outputDir: string, since: number): ReadonlyArray<SavedRun> => {
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
      let stderr = ""
      try {
        stderr = Fs.readFileSync(Path.join(dir, "stderr.txt"), "utf8")
      } catch {
        // No stderr saved: nothing to learn from it.
      }
      runs.push({
        scenario: scenario!,
        checks: readChecks(Path.join(dir, "checks.json")),
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
 * What the baseline file says: `client:` (expected failures, `scenario` or `scenario:check-id`,
 * read by the referee too), and for this runner only `vacuous:` (scenarios the referee passes
 * with nothing checked) and `skipped:` (scenarios expected to save no result at all).
 *
 * @since 0.1.0
 * @category models
 */
export interface Baseline {
  readonly expected: ReadonlySet<string>
  readonly vacuous: ReadonlySet<string>
  readonly skipped: ReadonlySet<string>
}

/**
 * Every way a run can fail that the referee's exit code does not show: the referee decides only
 * on required scenarios and looks only at FAILURE/WARNING checks, so an unscored scenario that
 * fails, a scenario whose mock never heard from the client (every check SKIPPED), one where the
 * driver itself failed after the checked request, and one that saved no result at all all pass
 * there. Here each is a failure, unless the baseline lists it; a baseline entry for a scenario
 * that now passes is reported as stale.
 *
 * @since 0.1.0
 * @category verdicts
 */
export const unnoticed = (
  runs: ReadonlyArray<SavedRun>,
  options: {
    /** The scenarios the run was meant to cover (every one must have saved a result). */
    readonly scenarios: ReadonlyArray<string> | undefined
    readonly baseline: Baseline
  }
): ReadonlyArray<string> => {
  const { expected, skipped, vacuous } = options.baseline
  const ran = new Set(runs.map((run) => run.scenario))
  const missing = (options.scenarios ?? []).filter((scenario) => !ran.has(scenario) && !skipped.has(scenario))
    .map((scenario) => `${scenario}: no result saved (the referee skipped it, or the run ended first)`)
  return [...missing, ...runs.flatMap((run) => verdict(run, expected, vacuous))]
}

const verdict = (run: SavedRun, expected: ReadonlySet<string>, vacuous: ReadonlySet<string>): ReadonlyArray<string> => {
  const failed = run.checks.filter((check) => check.status === "FAILURE" || check.status === "WARNING")
  if (expected.has(run.scenario)) {
    return failed.length === 0 && !run.driverFailed
      ? [`${run.scenario}: passes now; remove it from the baseline's client: list`]
      : []
  }
  const unexpected = failed.filter((check) => !expected.has(`${run.scenario}:${check.id}`))
  if (unexpected.length > 0) {
    return [`${run.scenario}: ${unexpected.map((check) => `${check.id} ${check.status}`).join(", ")}`]
  }
  const checked = run.checks.some((check) => check.status === "SUCCESS")
  if (vacuous.has(run.scenario)) {
    return checked && !run.driverFailed
      ? [`${run.scenario}: passes now; remove it from the baseline's vacuous: list`]
      : []
  }
  if (!checked) {
    return [`${run.scenario}: the referee checked nothing${run.driverFailed ? " (the driver failed)" : ""}`]
  }
  return run.driverFailed ? [`${run.scenario}: the referee's checks passed but the driver failed`] : []
}

/**
 * The client scenarios named in the output of `conformance list --client --requirements R`:
 * those under "Client scenarios", and the unscored ones marked `[client]`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const clientScenarios = (listing: string): ReadonlyArray<string> => {
  const scenarios: Array<string> = []
  let section = ""
  for (const line of listing.split(/\r?\n/)) {
    if (/^\S/.test(line) || /^\s*\S.*:$/.test(line)) section = line.trim()
    const item = /^\s+-\s+(\S+)(?:\s+\[(\w+)\])?\s*$/.exec(line)
    if (item === null) continue
    if (item[2] === "client" || (item[2] === undefined && section.startsWith("Client scenarios"))) {
      scenarios.push(item[1]!)
    }
  }
  return scenarios
}

export const readBaseline = (file: string | undefined): Baseline => ({
  expected: new Set(file === undefined ? [] : yamlList(file, "client")),
  vacuous: new Set(file === undefined ? [] : yamlList(file, "vacuous")),
  skipped: new Set(file === undefined ? [] : yamlList(file, "skipped"))
})
