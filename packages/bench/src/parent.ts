/**
 * The parent of `npm run bench`: runs every benchmark as one worker process per client and
 * round (first contact: a few fresh processes; order rotated each round, never two processes at
 * once), prints a table per benchmark with its targets, and a summary of paired ratios (the
 * median over rounds of ours ÷ peer within the same round).
 *
 * @since 0.1.0
 */
import * as os from "node:os"
import {
  type ClientName,
  clientNames,
  dualEraServer,
  fakeServerBin,
  killRunning,
  labels,
  median,
  runProcess,
  selfPath,
  workerResultOf
} from "./common.js"
import * as FirstContact from "./first-contact.js"
import { validationBench } from "./validation.js"
import type { Params, WorkerName, WorkerResult } from "./workers.js"

const MiB = 1024 * 1024

/** A column of a benchmark's table: one metric of the runs. @since 0.2.0 @category models */
export interface Column {
  readonly header: string
  readonly key: string
  readonly digits: number
  readonly scale?: number
}

/** A metric the summary compares, ours ÷ each peer. @since 0.2.0 @category models */
export interface RatioMetric {
  readonly label: string
  readonly key: string
  readonly better: "higher" | "lower"
  /** A ceiling on ours ÷ raw of the same era that the project aims for. */
  readonly rawTarget?: number
}

/**
 * A goal for ours, judged after the benchmark's table: the median of ours's metric over the
 * rounds or, with `peer`, the median of ours ÷ peer paired within a round; met when at most
 * `max` (below it, with `strict`). Without `max`, the figure is shown for information.
 *
 * @since 0.2.0
 * @category models
 */
export interface Target {
  readonly label: string
  readonly key: string
  readonly peer?: ClientName
  readonly max?: number
  readonly strict?: boolean
  readonly unit: "×" | "ms"
}

/** What measuring one client once gives. @since 0.2.0 @category models */
export interface Measured {
  readonly result: WorkerResult
  /** Lines of `MaxListenersExceededWarning` the processes printed. */
  readonly warnings: number
  readonly seconds: number
}

/** @since 0.2.0 @category models */
export interface Run extends Measured {
  readonly client: ClientName
  readonly round: number
}

/** One benchmark: how to measure a client, and how to report it. @since 0.2.0 @category models */
export interface Spec {
  readonly id: string
  readonly title: string
  /** The worker of `main.ts --worker` to run, or a function that measures one client itself. */
  readonly worker: WorkerName | ((client: ClientName) => Promise<Measured>)
  readonly params: Params
  readonly clients: ReadonlyArray<ClientName>
  readonly rounds: number
  readonly columns: ReadonlyArray<Column>
  readonly ratios: ReadonlyArray<RatioMetric>
  readonly targets?: ReadonlyArray<Target>
  readonly notes?: ReadonlyArray<string>
}

const positiveInt = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`)
  return n
}

const withRaw2026: ReadonlyArray<ClientName> = clientNames
const allPeers: ReadonlyArray<ClientName> = clientNames.filter((name) => name !== "raw-2026")

const buildSpecs = (quick: boolean): ReadonlyArray<Spec> => {
  const rounds = (fallback: number) => positiveInt("BENCH_ROUNDS", quick ? 1 : fallback)
  const large = (mib: number, reps: number): Spec => ({
    id: `stdio-${mib}mib`,
    title: `stdio ${mib} MiB blob result (fake server): wall time and peak client RSS`,
    worker: "stdio-large",
    params: { bytes: mib * MiB, reps: quick ? 1 : reps },
    clients: allPeers,
    rounds: rounds(2),
    columns: [
      { header: "wall ms", key: "wallMs", digits: 0 },
      { header: "1st call ms", key: "firstWallMs", digits: 0 },
      { header: "base RSS MiB", key: "baselineRss", digits: 0, scale: 1 / MiB },
      { header: "peak RSS MiB", key: "peakRss", digits: 0, scale: 1 / MiB },
      { header: "peak/payload", key: "peakPerPayload", digits: 2 },
      { header: "Δ/payload", key: "deltaPerPayload", digits: 2 }
    ],
    ratios: [
      { label: `stdio ${mib} MiB wall`, key: "wallMs", better: "lower" },
      { label: `stdio ${mib} MiB peak RSS`, key: "peakRss", better: "lower" }
    ],
    notes: [
      "peak RSS of the first call of that size (VmHWM reset after connect and a GC); wall = median of the calls",
      "Δ = peak − RSS just before the call; target: client RSS ≤ 3× payload (judged on Δ: a bare Node process",
      "is already ~40 MiB; peak/payload shown too)"
    ]
  })
  // `dual`: the blob server answers server/discover too, so ours and v2-auto speak 2026-07-28.
  const httpLarge = (mib: number, reply: "json" | "sse", serverEra: "legacy" | "dual" = "legacy"): Spec => ({
    id: serverEra === "legacy" ? `large-http-${mib}mib-${reply}` : `large-http-2026-${mib}mib-${reply}`,
    title: `Streamable HTTP ${mib} MiB blob result, ${reply === "json" ? "JSON" : "SSE"} reply (bench blob server, ${
      serverEra === "legacy" ? "2025-11-25" : "dual-era: ours and v2-auto on 2026-07-28"
    })`,
    worker: "stdio-large",
    params: { bytes: mib * MiB, reps: quick ? 1 : 3, transport: "http", reply, serverEra },
    clients: allPeers,
    rounds: rounds(2),
    columns: [
      { header: "wall ms", key: "wallMs", digits: 0 },
      { header: "client CPU ms", key: "cpuMs", digits: 0 },
      { header: "1st call ms", key: "firstWallMs", digits: 0 },
      { header: "peak RSS MiB", key: "peakRss", digits: 0, scale: 1 / MiB },
      { header: "Δ/payload", key: "deltaPerPayload", digits: 2 }
    ],
    ratios: [
      {
        label: `HTTP ${serverEra === "legacy" ? "" : "2026 "}${mib} MiB ${reply} wall`,
        key: "wallMs",
        better: "lower"
      },
      { label: "  client CPU", key: "cpuMs", better: "lower" }
    ],
    notes: [
      "wall and client CPU = medians of the calls (the first one gives the peak RSS); the server builds each",
      "payload once and writes it in one piece, so the figures are the client's"
    ]
  })
  const stdioEcho = (server: "fake" | "dual"): Spec => ({
    id: server === "fake" ? "stdio-echo" : "stdio-echo-2026",
    title: server === "fake"
      ? "stdio sequential tools/call echo, legacy era (fake server, 2025-11-25)"
      : "stdio sequential tools/call echo, dual-era SDK v2 server (ours, v2-auto: 2026-07-28)",
    worker: "stdio-echo",
    params: {
      calls: positiveInt("BENCH_CALLS", quick ? 200 : 5000),
      warmup: positiveInt("BENCH_WARMUP", quick ? 50 : 1000),
      server
    },
    clients: server === "dual" ? withRaw2026 : allPeers,
    rounds: rounds(3),
    columns: [
      { header: "calls/s", key: "callsPerSec", digits: 0 },
      { header: "CPU ms/1000", key: "cpuMsPer1000", digits: 1 },
      { header: "of it sys", key: "sysMsPer1000", digits: 1 },
      { header: "server CPU/1000", key: "serverCpuMsPer1000", digits: 0 },
      { header: "connect ms", key: "connectMs", digits: 0 },
      { header: "RSS conn MiB", key: "rssAfterConnect", digits: 0, scale: 1 / MiB },
      { header: "RSS end MiB", key: "rssAfterRun", digits: 0, scale: 1 / MiB }
    ],
    ratios: [
      { label: `stdio echo ${server === "fake" ? "legacy" : "2026"} calls/s`, key: "callsPerSec", better: "higher" },
      { label: "  CPU/1000 calls", key: "cpuMsPer1000", better: "lower", rawTarget: 1.25 },
      { label: "  RSS after connect", key: "rssAfterConnect", better: "lower" },
      { label: "  RSS after the run", key: "rssAfterRun", better: "lower" }
    ],
    notes: [
      "CPU = the client worker process (user + sys) over the measured calls; server CPU = the server child's",
      "(/proc, 10 ms ticks); connect = spawn → connected (ours and v2-auto probe server/discover first);",
      "RSS conn = just after connect; RSS end = after warm-up + measured calls (no forced GC)"
    ]
  })
  const idleSpec = (transport: "http" | "stdio", connections: number): Spec => ({
    id: `idle-${transport}`,
    title: `P7 memory per idle connection: ${connections} ${
      transport === "http" ? "Streamable HTTP connections to one local server" : "stdio children (fake server)"
    }`,
    worker: "idle",
    params: { connections: quick ? Math.min(connections, 10) : connections, transport },
    clients: ["ours", "ours-promise", "v1", "v2-legacy", "v2-auto"],
    rounds: rounds(1),
    columns: [
      { header: "RSS before MiB", key: "rssBefore", digits: 0, scale: 1 / MiB },
      { header: "RSS after MiB", key: "rssAfter", digits: 0, scale: 1 / MiB },
      { header: "KiB RSS/conn", key: "rssPerConnection", digits: 0, scale: 1 / 1024 },
      { header: "KiB heap/conn", key: "heapPerConnection", digits: 0, scale: 1 / 1024 }
    ],
    ratios: [
      { label: `idle ${transport} RSS/connection`, key: "rssPerConnection", better: "lower" },
      { label: "  heap/connection", key: "heapPerConnection", better: "lower" }
    ],
    notes: [
      "one warm connection first; then the connections, held idle; RSS and heapUsed after two GCs, before and",
      "after, ÷ connections (client process only: the servers are other processes)"
    ]
  })
  return [
    stdioEcho("fake"),
    stdioEcho("dual"),
    {
      id: "http",
      title: "HTTP tools/call echo, 32 in flight (dual-era SDK v2 server on loopback) + warm connect",
      worker: "http",
      params: {
        calls: positiveInt("BENCH_HTTP_CALLS", quick ? 100 : 300),
        warmup: quick ? 32 : 64,
        inFlight: 32,
        connects: quick ? 2 : 5
      },
      clients: withRaw2026,
      rounds: rounds(2),
      columns: [
        { header: "calls/s", key: "callsPerSec", digits: 0 },
        { header: "CPU ms/call", key: "cpuMsPerCall", digits: 3 },
        { header: "server CPU/call", key: "serverCpuMsPerCall", digits: 2 },
        { header: "warm conn ms", key: "warmConnectMs", digits: 1 },
        { header: "+list ms", key: "warmConnectListMs", digits: 1 }
      ],
      ratios: [
        { label: "HTTP 32-in-flight calls/s", key: "callsPerSec", better: "higher" },
        { label: "HTTP CPU/call", key: "cpuMsPerCall", better: "lower" },
        { label: "HTTP connect, warm", key: "warmConnectMs", better: "lower" }
      ],
      notes: [
        "CPU = the client worker process only; server CPU = the server child's, same window (/proc, 10 ms ticks)",
        "calls/s is bound by the server where its CPU/call × calls/s ≈ 1 s/s: then compare client CPU, not calls/s",
        "warm connect = median of fresh connections after the throughput run (server and client code warm);",
        "+list = connect then the first tools/list"
      ]
    },
    large(8, 2),
    large(32, 2),
    httpLarge(8, "json"),
    httpLarge(8, "sse"),
    httpLarge(32, "json"),
    httpLarge(32, "sse"),
    httpLarge(8, "json", "dual"),
    httpLarge(8, "sse", "dual"),
    httpLarge(32, "json", "dual"),
    httpLarge(32, "sse", "dual"),
    idleSpec("http", 200),
    idleSpec("stdio", 50),
    {
      id: "stdio-connect",
      title: "stdio connect → first tools/list (dual-era SDK v2 server)",
      worker: "stdio-connect",
      params: { connects: quick ? 1 : 2 },
      clients: withRaw2026,
      rounds: rounds(2),
      columns: [
        { header: "connect ms", key: "connectMs", digits: 0 },
        { header: "+list ms", key: "firstListMs", digits: 0 },
        { header: "after ready ms", key: "afterReadyMs", digits: 0 }
      ],
      ratios: [
        { label: "stdio connect → tools/list", key: "firstListMs", better: "lower" },
        { label: "  after server ready", key: "afterReadyMs", better: "lower" }
      ],
      notes: [
        "connect / +list: from the client's connect call (it spawns the server) to connected / to the first",
        "tools/list answered, median of fresh connects after one warm-up; after ready: from the server's",
        "'serving stdio' (a preloaded hook notes the time) to the first tools/list answered (v2-auto's",
        "probe runs on a second, earlier server process: its total includes that one's start-up too)"
      ]
    },
    FirstContact.spec({ quick, rounds: rounds(5) })
  ]
}

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
const oursVariants = ["ours", "ours-promise", "ours-runtime"] as const
const variantLabels: Record<typeof oursVariants[number], string> = {
  ours: "Effect loop",
  "ours-promise": "Promise",
  "ours-runtime": "runPromise/call"
}

interface Cell {
  readonly text: string
  readonly behind: boolean
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
  for (let round = 0; round < spec.rounds; round++) {
    const mine = runs.find((r) => r.client === ours && r.round === round)
    const peerName = peer === "raw" ? rawFor(spec, mine) : peer
    const theirs = runs.find((r) => r.client === peerName && r.round === round)
    const a = metricOf(mine, key)
    const b = metricOf(theirs, key)
    if (a === undefined) oursFailed++
    if (b !== undefined) peerMeasured++
    if (b === undefined && theirs?.result.ok !== true) {
      peerFailed++
      if (theirs?.result.ok === false) peerError = theirs.result.error
    }
    if (a !== undefined && b !== undefined && b !== 0) ratios.push(a / b)
  }
  return { ratios, oursFailed, peerFailed, peerError, peerMeasured }
}

const ratioCell = (
  spec: Spec,
  runs: ReadonlyArray<Run>,
  ours: ClientName,
  peer: ComparedPeer,
  metric: RatioMetric
): Cell => {
  if (!spec.clients.includes(peer)) return { text: "-", behind: false }
  const { oursFailed, peerError, peerFailed, peerMeasured, ratios } = pairedRatios(spec, runs, ours, peer, metric.key)
  if (ratios.length === 0) {
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
  } else if (worse) {
    mark = margin > 1.05 ? " BEHIND" : " behind?"
  }
  return { text: `×${r.toFixed(2)}${mark}`, behind: peer !== "raw" && worse }
}

const targetValue = (spec: Spec, runs: ReadonlyArray<Run>, ours: ClientName, target: Target): number =>
  target.peer === undefined
    ? medianOf(runs.filter((r) => r.client === ours), target.key)
    : median(pairedRatios(spec, runs, ours, target.peer, target.key).ratios)

const verdict = (value: number, target: Target): string => {
  if (target.max === undefined) return "(information)"
  if (Number.isNaN(value)) return "not measured"
  return (target.strict === true ? value < target.max : value <= target.max) ? "met" : "NOT MET"
}

const printTargets = (spec: Spec, runs: ReadonlyArray<Run>) => {
  const ours = oursVariants.find((o) => spec.clients.includes(o))
  if (spec.targets === undefined || ours === undefined) return
  console.log(`  targets for ${labels[ours]} (× = median of ours ÷ peer paired within a round):`)
  for (const target of spec.targets) {
    const value = targetValue(spec, runs, ours, target)
    const shown = Number.isNaN(value) ? "-" : target.unit === "×" ? `×${value.toFixed(2)}` : `${value.toFixed(0)} ms`
    console.log(`    ${pad(target.label, 46, true)} ${pad(shown, 8, false)}  ${verdict(value, target)}`)
  }
}

const printSummary = (results: ReadonlyArray<{ readonly spec: Spec; readonly runs: ReadonlyArray<Run> }>) => {
  console.log("\n=== summary: ours ÷ peer, median of ratios paired within a round")
  console.log("    calls/s: > 1 means ours is faster; every other metric is a cost: < 1 means ours is cheaper")
  const widths = [30, 15, 16, 16, 16, 16]
  console.log(`  ${row(["benchmark", "ours", "vs v1", "vs v2-legacy", "vs v2-auto", "vs raw (same era)"], widths)}`)
  const behind = new Map<string, Array<string>>()
  for (const { runs, spec } of results) {
    const variants = oursVariants.filter((ours) => spec.clients.includes(ours))
    for (const metric of spec.ratios) {
      for (const ours of variants) {
        const cells = comparedPeers.map((peer) => ratioCell(spec, runs, ours, peer, metric))
        const better = metric.better === "higher" ? "↑" : "↓"
        const label = ours === variants[0] ? `${metric.label} ${better}` : ""
        console.log(
          `  ${row([label, variantLabels[ours], ...cells.map((c) => c.text)], widths)}`
        )
        const lagging = cells.flatMap((cell, i) =>
          cell.behind ? [`${comparedPeers[i]} ${cell.text.replace(" BEHIND", "").replace(" behind?", "?")}`] : []
        )
        if (lagging.length > 0) {
          const key = metric.label.startsWith(" ") ? `${spec.ratios[0]!.label}, ${metric.label.trim()}` : metric.label
          behind.set(key, [...(behind.get(key) ?? []), `${ours} behind ${lagging.join(", ")}`])
        }
      }
    }
  }
  console.log(
    "  BEHIND: ours worse by more than 5 %; behind?: worse by up to 5 % (within noise); vs raw: raw of ours's era"
  )
  console.log(
    "  >×1.25: over the project's target of 1.25 × raw; '<peer> failed*': the peer failed every round (see its table)"
  )
  if (behind.size === 0) console.log("\n  ours is not behind any official client in any benchmark")
  else {
    console.log("\n  where ours is behind an official client (ours ÷ peer):")
    for (const [metric, lines] of behind) console.log(`    - ${`${metric}:`.padEnd(31)} ${lines.join("; ")}`)
    console.log("    (?: within 5 %, i.e. within noise)")
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
  const results: Array<{ spec: Spec; runs: ReadonlyArray<Run> }> = []
  for (const spec of specs) results.push({ spec, runs: await runSpec(spec) })
  printSummary(results)
  if (only.length === 0 || only.includes("validation")) await validationBench(quick)
  console.log(`\ntotal ${((performance.now() - began) / 1000).toFixed(1)} s; load average now ${load()}`)
}
