/**
 * The parent of `npm run bench`: runs every benchmark as one worker process per client and
 * round (first contact: a few fresh processes; order rotated each round, never two processes at
 * once), prints a table per benchmark with its targets, and a summary of paired ratios (the
 * median over rounds of ours ÷ peer within the same round).
 *
 * @since 0.1.0
 */
import * as Fs from "node:fs"
import * as os from "node:os"
import * as Path from "node:path"
import { bundleSizeBench } from "./bundle-size.js"
import {
  type ClientName,
  dualEraServer,
  fakeServerBin,
  killRunning,
  labels,
  median,
  runProcess,
  selfPath,
  workerResultOf
} from "./common.js"
import { idleOneClientBench } from "./idle-one-client.js"
import type { Column, Measured, RatioMetric, Run, Spec, Target } from "./specs.js"
import { buildSpecs } from "./specs.js"
import { validationBench } from "./validation.js"
import type { Params, WorkerName } from "./workers.js"

const WORKER_TIMEOUT_MS = 150_000

const onSignal = (signal: NodeJS.Signals) => {
  killRunning()
  process.exit(signal === "SIGINT" ? 130 : 143)
}

/** One `main.ts --worker` process for `client`. */
const inWorker = async (worker: WorkerName, params: Params, client: ClientName): Promise<Measured> => {
  const outcome = await runProcess(
    ["--expose-gc", selfPath, "--worker", worker, "--client", client, "--params", JSON.stringify(params)],
    { timeoutMs: WORKER_TIMEOUT_MS }
  )
  return { result: workerResultOf(outcome), warnings: outcome.warnings, seconds: outcome.wallMs / 1000 }
}

const measure = (spec: Spec, client: ClientName): Promise<Measured> =>
  typeof spec.worker === "function" ? spec.worker(client) : inWorker(spec.worker, spec.params, client)

const pad = (cell: string, width: number, left: boolean) => left ? cell.padEnd(width) : cell.padStart(width)
const row = (cells: ReadonlyArray<string>, widths: ReadonlyArray<number>): string =>
  cells.map((cell, i) => pad(cell, widths[i]!, i === 0)).join("  ")

const format = (value: number | undefined, column: Column): string =>
  value === undefined || Number.isNaN(value) ? "-" : (value * (column.scale ?? 1)).toFixed(column.digits)

const runCells = (spec: Spec, run: Run): Array<string> => {
  const r = run.result
  if (!r.ok) return [labels[run.client], r.era ?? "-", `failed: ${r.error}`]
  return [labels[run.client], r.era, ...spec.columns.map((c) => format(r.metrics[c.key], c))]
}

const widthsOf = (spec: Spec) => [22, 10, ...spec.columns.map((c) => Math.max(9, c.header.length))]

const metricOf = (run: Run | undefined, key: string): number | undefined =>
  run !== undefined && run.result.ok ? run.result.metrics[key] : undefined

/** The median of a metric over the runs that have it. */
const medianOf = (runs: ReadonlyArray<Run>, key: string): number =>
  median(runs.flatMap((run) => metricOf(run, key) ?? []))

const runSpec = async (spec: Spec): Promise<ReadonlyArray<Run>> => {
  console.log(`\n=== ${spec.title}`)
  console.log(
    `    ${spec.rounds} round(s), clients in rotated order; params ${JSON.stringify(spec.params)}`
  )
  const widths = widthsOf(spec)
  const header = row(["client", "era", ...spec.columns.map((c) => c.header)], widths)
  const runs: Array<Run> = []
  for (let round = 0; round < spec.rounds; round++) {
    console.log(`  round ${round + 1}/${spec.rounds}   ${header}`)
    const order = spec.clients.map((_, i) => spec.clients[(i + round) % spec.clients.length]!)
    for (const client of order) {
      const run: Run = { client, round, ...(await measure(spec, client)) }
      runs.push(run)
      const cells = runCells(spec, run)
      const line = run.result.ok
        ? row(cells, widths)
        : `${pad(cells[0]!, widths[0]!, true)}  ${cells.slice(1).join("  ")}`
      const extra = [
        run.warnings > 0 ? `${run.warnings} MaxListenersExceeded warnings` : "",
        run.seconds > 20 ? `${run.seconds.toFixed(0)} s` : "",
        run.result.ok ? run.result.info?.failed ?? "" : ""
      ].filter((s) => s !== "").join(", ")
      console.log(`               ${line}${extra === "" ? "" : `  (${extra})`}`)
    }
  }
  if (spec.rounds > 1) printMedians(spec, runs, header, widths)
  for (const note of spec.notes ?? []) console.log(`  note: ${note}`)
  printTargets(spec, runs)
  return runs
}

const printMedians = (spec: Spec, runs: ReadonlyArray<Run>, header: string, widths: ReadonlyArray<number>) => {
  console.log(`  medians      ${header}`)
  for (const client of spec.clients) {
    const mine = runs.filter((r) => r.client === client)
    const ok = mine.filter((r) => r.result.ok)
    const failures = mine.filter((r) => !r.result.ok)
    const eras = [...new Set(mine.map((r) => r.result.era ?? "-"))].join("/")
    if (ok.length === 0) {
      const reason = failures[0]?.result.ok === false ? failures[0].result.error : "no run"
      console.log(
        `               ${pad(labels[client], widths[0]!, true)}  ${pad(eras, widths[1]!, false)}  failed: ${reason}`
      )
      continue
    }
    const cells = spec.columns.map((c) => format(medianOf(ok, c.key), c))
    const extra = [
      failures.length > 0 ? `${failures.length} of ${mine.length} runs failed` : "",
      mine.some((r) => r.warnings > 0)
        ? `${median(mine.map((r) => r.warnings))} MaxListenersExceeded warnings/run`
        : ""
    ].filter((s) => s !== "").join("; ")
    console.log(`               ${row([labels[client], eras, ...cells], widths)}${extra === "" ? "" : `  (${extra})`}`)
  }
}

// ---------------------------------------------------------------------------------------------
// Paired ratios: the targets of a benchmark, and the summary
// ---------------------------------------------------------------------------------------------

const comparedPeers = ["v1", "v2-legacy", "v2-auto", "raw"] as const
type ComparedPeer = typeof comparedPeers[number]
const oursVariants = ["ours", "ours-promise", "ours-standalone", "ours-runtime", "ours-from-runtime"] as const
const variantLabels: Record<typeof oursVariants[number], string> = {
  ours: "Effect loop",
  "ours-promise": "Promise",
  "ours-standalone": "standalone",
  "ours-runtime": "runPromise/call",
  "ours-from-runtime": "fromRuntime"
}

interface Cell {
  readonly text: string
  readonly behind: boolean
  /** Ours worse than a peer that spoke another era in every paired round (information). */
  readonly otherEra?: boolean
}

/** Which raw client matches the era ours negotiated in that round. */
const rawFor = (spec: Spec, ours: Run | undefined): ClientName =>
  spec.clients.includes("raw-2026") && ours?.result.ok === true && ours.result.era === "2026-07-28"
    ? "raw-2026"
    : "raw"

interface Paired {
  /** ours ÷ peer, one per round where both have the metric. */
  readonly ratios: ReadonlyArray<number>
  readonly oursFailed: number
  readonly peerFailed: number
  readonly peerError: string
  /** Rounds in which the peer has the metric at all (the raw loop has no import, for one). */
  readonly peerMeasured: number
  /** Rounds in which ours or the peer measured zero or less (no ratio). */
  readonly nonPositive: number
  /** Whether, in every round with a ratio, the peer negotiated another era than ours (a dual-era server's spec). */
  readonly otherEra: boolean
}

/** ours ÷ peer within each round (a peer that ran but has no such metric is not a failure). */
const pairedRatios = (
  spec: Spec,
  runs: ReadonlyArray<Run>,
  ours: ClientName,
  peer: ClientName,
  key: string
): Paired => {
  const ratios: Array<number> = []
  let oursFailed = 0
  let peerFailed = 0
  let peerError = ""
  let peerMeasured = 0
  let nonPositive = 0
  let sameEra = 0
  for (let round = 0; round < spec.rounds; round++) {
    const mine = runs.find((r) => r.client === ours && r.round === round)
    const peerName = peer === "raw" ? rawFor(spec, mine) : peer
    const theirs = runs.find((r) => r.client === peerName && r.round === round)
    const a = metricOf(mine, key)
    const b = metricOf(theirs, key)
    if (
      a !== undefined && b !== undefined && (spec.dualEraServer !== true || mine?.result.era === theirs?.result.era)
    ) {
      sameEra++
    }
    if (a === undefined) oursFailed++
    if (b !== undefined) peerMeasured++
    if (b === undefined && theirs?.result.ok !== true) {
      peerFailed++
      if (theirs?.result.ok === false) peerError = theirs.result.error
    }
    // A figure of zero or less (RSS that fell during the measurement) makes no ratio.
    if (a !== undefined && b !== undefined) {
      if (a > 0 && b > 0) ratios.push(a / b)
      else nonPositive++
    }
  }
  return { ratios, oursFailed, peerFailed, peerError, peerMeasured, nonPositive, otherEra: sameEra === 0 }
}

const ratioCell = (
  spec: Spec,
  runs: ReadonlyArray<Run>,
  ours: ClientName,
  peer: ComparedPeer,
  metric: RatioMetric
): Cell => {
  if (!spec.clients.includes(peer)) return { text: "-", behind: false }
  const { nonPositive, otherEra, oursFailed, peerError, peerFailed, peerMeasured, ratios } = pairedRatios(
    spec,
    runs,
    ours,
    peer,
    metric.key
  )
  if (ratios.length === 0) {
    if (nonPositive > 0) return { text: "n/a (≤ 0)", behind: false }
    if (peerMeasured === 0 && peerFailed === 0) return { text: "-", behind: false }
    if (oursFailed > 0) return { text: "ours failed", behind: true }
    return { text: peerFailed > 0 ? `${peer} failed${peerError === "" ? "" : "*"}` : "-", behind: false }
  }
  const r = median(ratios)
  const worse = metric.better === "higher" ? r < 1 : r > 1
  const margin = metric.better === "higher" ? 1 / r : r
  let mark = ""
  if (peer === "raw") {
    if (metric.rawTarget !== undefined && r > metric.rawTarget) mark = ` >×${metric.rawTarget}`
  } else if (worse && otherEra) {
    // The peer spoke another era (SDK v1 and v2 legacy cannot speak 2026-07-28): the ratio
    // weighs the server's cost of each era as much as the clients.
    mark = " ≠era"
  } else if (worse) {
    mark = margin > 1.05 ? " BEHIND" : " behind?"
  }
  const lagging = peer !== "raw" && worse
  return { text: `×${r.toFixed(2)}${mark}`, behind: lagging && !otherEra, otherEra: lagging && otherEra }
}

/** ours − peer within each round where both have the metric. */
const pairedDifferences = (
  spec: Spec,
  runs: ReadonlyArray<Run>,
  ours: ClientName,
  peer: ClientName,
  key: string
): ReadonlyArray<number> => {
  const differences: Array<number> = []
  for (let round = 0; round < spec.rounds; round++) {
    const mine = runs.find((r) => r.client === ours && r.round === round)
    const peerName = peer === "raw" ? rawFor(spec, mine) : peer
    const a = metricOf(mine, key)
    const b = metricOf(runs.find((r) => r.client === peerName && r.round === round), key)
    if (a !== undefined && b !== undefined) differences.push(a - b)
  }
  return differences
}

const targetValue = (spec: Spec, runs: ReadonlyArray<Run>, ours: ClientName, target: Target): number =>
  target.peer === undefined
    ? medianOf(runs.filter((r) => r.client === ours), target.key)
    : target.unit === "+ms"
    ? median(pairedDifferences(spec, runs, ours, target.peer, target.key))
    : median(pairedRatios(spec, runs, ours, target.peer, target.key).ratios)

const shownValue = (value: number, target: Target): string => {
  if (Number.isNaN(value)) return "-"
  switch (target.unit) {
    case "×":
      return `×${value.toFixed(2)}`
    case "+ms":
      return `${value < 0 ? "−" : "+"}${Math.abs(value).toFixed(0)} ms`
    case "ms":
      return `${value.toFixed(0)} ms`
  }
}

const verdict = (value: number, target: Target): string => {
  if (target.max === undefined) return "(information)"
  if (Number.isNaN(value)) return "not measured"
  return (target.strict === true ? value < target.max : value <= target.max) ? "met" : "NOT MET"
}

const printTargets = (spec: Spec, runs: ReadonlyArray<Run>) => {
  const ours = oursVariants.find((o) => spec.clients.includes(o))
  if (spec.targets === undefined || ours === undefined) return
  console.log("  targets (× = median of ours ÷ peer, + ms = median of ours − peer, paired within a round):")
  let current: ClientName | undefined
  for (const target of spec.targets) {
    const mine = target.ours ?? ours
    if (mine !== current) console.log(`  for ${labels[mine]}:`)
    current = mine
    const value = targetValue(spec, runs, mine, target)
    const shown = shownValue(value, target)
    console.log(`    ${pad(target.label, 46, true)} ${pad(shown, 8, false)}  ${verdict(value, target)}`)
  }
}

const printSummary = (results: ReadonlyArray<{ readonly spec: Spec; readonly runs: ReadonlyArray<Run> }>) => {
  console.log("\n=== summary: ours ÷ peer, median of ratios paired within a round")
  console.log("    calls/s: > 1 means ours is faster; every other metric is a cost: < 1 means ours is cheaper")
  const widths = [30, 15, 16, 16, 16, 16]
  console.log(`  ${row(["benchmark", "ours", "vs v1", "vs v2-legacy", "vs v2-auto", "vs raw (same era)"], widths)}`)
  const behind = new Map<string, Array<string>>()
  const otherEra = new Map<string, Array<string>>()
  const note = (into: Map<string, Array<string>>, key: string, line: string) =>
    into.set(key, [...(into.get(key) ?? []), line])
  for (const { runs, spec } of results) {
    const variants = oursVariants.filter((ours) => spec.clients.includes(ours))
    // An indented metric belongs to the last one that is not.
    let heading = spec.ratios[0]?.label ?? ""
    for (const metric of spec.ratios) {
      if (!metric.label.startsWith(" ")) heading = metric.label
      for (const ours of variants) {
        const cells = comparedPeers.map((peer) => ratioCell(spec, runs, ours, peer, metric))
        const better = metric.better === "higher" ? "↑" : "↓"
        const label = ours === variants[0] ? `${metric.label} ${better}` : ""
        console.log(
          `  ${row([label, variantLabels[ours], ...cells.map((c) => c.text)], widths)}`
        )
        const key = metric.label.startsWith(" ") ? `${heading}, ${metric.label.trim()}` : metric.label
        const lagging = cells.flatMap((cell, i) =>
          cell.behind ? [`${comparedPeers[i]} ${cell.text.replace(" BEHIND", "").replace(" behind?", "?")}`] : []
        )
        if (lagging.length > 0) note(behind, key, `${ours} behind ${lagging.join(", ")}`)
        const eras = cells.flatMap((cell, i) =>
          cell.otherEra === true ? [`${comparedPeers[i]} ${cell.text.replace(" ≠era", "")}`] : []
        )
        if (eras.length > 0) note(otherEra, key, `${ours} behind ${eras.join(", ")}`)
      }
    }
  }
  console.log(
    "  BEHIND: ours worse by more than 5 %; behind?: worse by up to 5 % (within noise); vs raw: raw of ours's era"
  )
  console.log(
    "  >×1.25: over the project's target of 1.25 × raw; '<peer> failed*': the peer failed every round (see its table)"
  )
  console.log("  n/a (≤ 0): ours or the peer measured zero or less in every round (RSS that fell during it): no ratio")
  console.log(
    "  ≠era: ours worse than a peer that negotiated another era in every round (SDK v1 and v2 legacy cannot speak"
  )
  console.log("  2026-07-28): the ratio weighs the server's cost of each era too; listed apart, as information")
  if (behind.size === 0) console.log("\n  ours is not behind any official client in any benchmark")
  else {
    console.log("\n  where ours is behind an official client (ours ÷ peer):")
    for (const [metric, lines] of behind) console.log(`    - ${`${metric}:`.padEnd(31)} ${lines.join("; ")}`)
    console.log("    (?: within 5 %, i.e. within noise)")
  }
  if (otherEra.size > 0) {
    console.log("\n  where ours is worse than a peer that spoke another era (information, ours ÷ peer):")
    for (const [metric, lines] of otherEra) console.log(`    - ${`${metric}:`.padEnd(31)} ${lines.join("; ")}`)
  }
}

/**
 * Runs every benchmark and prints the tables.
 *
 * @since 0.1.0
 */
export const parent = async (quick: boolean): Promise<void> => {
  const only = (process.env.BENCH_ONLY ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
  const specs = buildSpecs(quick).filter((spec) => only.length === 0 || only.some((o) => spec.id.startsWith(o)))
  const cpus = os.cpus()
  const load = () => os.loadavg().map((n) => n.toFixed(2)).join(" ")
  console.log(`mcp-effect bench${quick ? " (--quick)" : ""}: fresh processes per client per round`)
  console.log(`servers  ${fakeServerBin} (fake, legacy era)`)
  console.log(`         ${dualEraServer} (dual-era, @modelcontextprotocol/server 2.4.0)`)
  console.log(
    `node ${process.version}, ${process.platform} ${process.arch}, ${cpus.length} CPU (${cpus[0]?.model ?? "?"}), ` +
      `load average ${load()}`
  )
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)
  const began = performance.now()
  // The facade keeps eras in $XDG_CONFIG_HOME/mcp-effect/era.json: the run gets its own, so that
  // it neither reads a user's file nor fills it (a fan-out meets a thousand new servers per run),
  // and each benchmark a directory of its own in it, so that none reads what an earlier one left
  // (first contact after the fan-out would otherwise parse and rewrite a full file per process).
  const config = Fs.mkdtempSync(Path.join(os.tmpdir(), "mcp-bench-config-"))
  const results: Array<{ spec: Spec; runs: ReadonlyArray<Run> }> = []
  try {
    for (const spec of specs) {
      process.env.XDG_CONFIG_HOME = Fs.mkdtempSync(Path.join(config, `${spec.id}-`))
      results.push({ spec, runs: await runSpec(spec) })
    }
    process.env.XDG_CONFIG_HOME = Fs.mkdtempSync(Path.join(config, "idle-one-client-"))
    if (only.length === 0 || only.some((o) => "idle-one-client".startsWith(o))) await idleOneClientBench(quick)
  } finally {
    Fs.rmSync(config, { recursive: true, force: true })
  }
  printSummary(results)
  if (only.length === 0 || only.includes("validation")) await validationBench(quick)
  if (only.length === 0 || only.includes("bundle-size")) await bundleSizeBench()
  console.log(`\ntotal ${((performance.now() - began) / 1000).toFixed(1)} s; load average now ${load()}`)
}
