/**
 * What `npm run bench` measures: each benchmark's worker, parameters, clients, rounds, table
 * columns, the ratios its summary compares and its notes (`parent.ts` runs and prints them).
 *
 * @since 0.2.0
 */
import { type ClientName, clientNames } from "./common.js"
import * as FirstContact from "./first-contact.js"
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
  /** Which of ours the target is for (default: the first of ours in the benchmark's clients). */
  readonly ours?: ClientName
  readonly max?: number
  readonly strict?: boolean
  /** `×`: ours ÷ peer; `+ms`: ours − peer (both paired in a round); `ms`: ours itself. */
  readonly unit: "×" | "ms" | "+ms"
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
  /**
   * Against a dual-era server each client speaks its own era, and the server's cost differs by
   * era: the summary lists ours being worse than a peer that spoke another era apart, as
   * information (`parent.ts`).
   */
  readonly dualEraServer?: boolean
}

/** The per-call latency percentiles of a worker (`latency.ts`'s `tailMetrics`), in `unit`. */
const tailColumns = (unit: string, scale: number, digits: number, prefix = ""): ReadonlyArray<Column> =>
  ["p50", "p95", "p99"].map((p) => ({
    header: `${p} ${unit}`,
    key: prefix === "" ? `${p}Ms` : `${prefix}P${p.slice(1)}Ms`,
    digits,
    scale
  }))

const tailRatios: ReadonlyArray<RatioMetric> = [
  { label: "  p50 latency", key: "p50Ms", better: "lower" },
  { label: "  p95 latency", key: "p95Ms", better: "lower" },
  { label: "  p99 latency", key: "p99Ms", better: "lower" }
]

const positiveInt = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`)
  return n
}

// `ours-from-runtime` (the Promise client over a ManagedRuntime) runs in the stdio echo rows only;
// `ours-standalone` (the same facade as `ours-promise`, bundled with its Effect) where loading
// counts: first contact, and HTTP (its first connection in a process).
const everyRow: ReadonlyArray<ClientName> = clientNames.filter((name) => name !== "ours-standalone")
const withRaw2026: ReadonlyArray<ClientName> = everyRow.filter((name) => name !== "ours-from-runtime")
const allPeers: ReadonlyArray<ClientName> = withRaw2026.filter((name) => name !== "raw-2026")
const echoPeers = (server: "fake" | "dual"): ReadonlyArray<ClientName> =>
  everyRow.filter((name) => server === "dual" || name !== "raw-2026")
const httpPeers: ReadonlyArray<ClientName> = clientNames.filter((name) => name !== "ours-from-runtime")

/**
 * Every benchmark, in the order they run (`quick`: small counts, one round).
 *
 * @since 0.2.0
 */
export const buildSpecs = (quick: boolean): ReadonlyArray<Spec> => {
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
    dualEraServer: serverEra === "dual",
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
  // Only the first window's rows: the steady rows leave connect and RSS out (bench time).
  const connectAndRssColumns: ReadonlyArray<Column> = [
    { header: "connect ms", key: "connectMs", digits: 0 },
    { header: "RSS conn MiB", key: "rssAfterConnect", digits: 0, scale: 1 / MiB },
    { header: "RSS end MiB", key: "rssAfterRun", digits: 0, scale: 1 / MiB }
  ]
  const rssRatios: ReadonlyArray<RatioMetric> = [
    { label: "  RSS after connect", key: "rssAfterConnect", better: "lower" },
    { label: "  RSS after the run", key: "rssAfterRun", better: "lower" }
  ]
  // The first window measures calls soon after start-up, while V8 still compiles the hot path
  // (every client pays that once per process); the steady one after enough calls that the JIT
  // has settled: what a long-running host pays per call.
  const stdioEcho = (server: "fake" | "dual", window: "first" | "steady"): Spec => {
    const era = server === "fake" ? "legacy" : "2026"
    const steady = window === "steady"
    const warmup = steady
      ? positiveInt("BENCH_STEADY_WARMUP", quick ? 100 : 20000)
      : positiveInt("BENCH_WARMUP", quick ? 50 : 1000)
    const serverTitle = server === "fake"
      ? "legacy era (fake server, 2025-11-25)"
      : "dual-era SDK v2 server (ours, v2-auto: 2026-07-28)"
    return {
      id: `stdio-${steady ? "steady" : "echo"}${server === "fake" ? "" : "-2026"}`,
      dualEraServer: server === "dual",
      title: steady
        ? `stdio sequential tools/call echo, steady state after ${warmup} warm-up calls, ${serverTitle}`
        : `stdio sequential tools/call echo, ${serverTitle}`,
      worker: "stdio-echo",
      params: { calls: positiveInt("BENCH_CALLS", quick ? 200 : 5000), warmup, server },
      clients: echoPeers(server),
      rounds: rounds(3),
      columns: [
        { header: "calls/s", key: "callsPerSec", digits: 0 },
        { header: "CPU ms/1000", key: "cpuMsPer1000", digits: 1 },
        { header: "of it sys", key: "sysMsPer1000", digits: 1 },
        { header: "server CPU/1000", key: "serverCpuMsPer1000", digits: 0 },
        ...tailColumns("µs", 1000, 0),
        ...steady ? [] : connectAndRssColumns
      ],
      ratios: [
        {
          label: `stdio ${steady ? "steady" : "echo"} ${era} calls/s`,
          key: "callsPerSec",
          better: "higher"
        },
        { label: "  CPU/1000 calls", key: "cpuMsPer1000", better: "lower", rawTarget: 1.25 },
        ...tailRatios,
        ...steady ? [] : rssRatios
      ],
      notes: steady
        ? [
          "the same measure as the stdio echo row, after enough warm-up calls that V8 has compiled the path",
          "(each client's optimizing compiler is nearly idle by then): the cost per call of a long-running host"
        ]
        : [
          "CPU = the client worker process (user + sys) over the measured calls; server CPU = the server child's",
          "(/proc, 10 ms ticks); connect = spawn → connected (ours and v2-auto probe server/discover first);",
          "RSS conn = just after connect; RSS end = after warm-up + measured calls (no forced GC); these calls",
          "include V8 compiling the hot path (its optimizing compiler runs on other threads of the process)"
        ]
    }
  }
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
    stdioEcho("fake", "first"),
    stdioEcho("dual", "first"),
    stdioEcho("fake", "steady"),
    stdioEcho("dual", "steady"),
    {
      id: "http",
      title: "HTTP tools/call echo, 32 in flight (dual-era SDK v2 server on loopback) + warm connect",
      dualEraServer: true,
      worker: "http",
      params: {
        calls: positiveInt("BENCH_HTTP_CALLS", quick ? 100 : 300),
        warmup: quick ? 32 : 64,
        inFlight: 32,
        // ~10–25 ms each: fifteen keep the warm-connect median off one slow connect.
        connects: quick ? 2 : 15
      },
      clients: httpPeers,
      rounds: rounds(2),
      columns: [
        { header: "calls/s", key: "callsPerSec", digits: 0 },
        { header: "CPU ms/call", key: "cpuMsPerCall", digits: 3 },
        { header: "server CPU/call", key: "serverCpuMsPerCall", digits: 2 },
        ...tailColumns("ms", 1, 2),
        { header: "1st conn ms", key: "firstConnectMs", digits: 0 },
        { header: "1st conn CPU", key: "firstConnectCpuMs", digits: 0 },
        { header: "warm conn ms", key: "warmConnectMs", digits: 1 },
        { header: "+list ms", key: "warmConnectListMs", digits: 1 }
      ],
      ratios: [
        { label: "HTTP 32-in-flight calls/s", key: "callsPerSec", better: "higher" },
        ...tailRatios,
        { label: "HTTP CPU/call", key: "cpuMsPerCall", better: "lower" },
        { label: "HTTP connect, first in process", key: "firstConnectMs", better: "lower" },
        { label: "  its client CPU", key: "firstConnectCpuMs", better: "lower" },
        { label: "HTTP connect, warm", key: "warmConnectMs", better: "lower" }
      ],
      targets: [
        {
          label: "first HTTP connect ≤ 1.25× v2",
          key: "firstConnectMs",
          peer: "v2-legacy",
          ours: "ours-promise",
          max: 1.25,
          unit: "×"
        },
        {
          label: "first HTTP connect ≤ 1.25× v2",
          key: "firstConnectMs",
          peer: "v2-legacy",
          ours: "ours-standalone",
          max: 1.25,
          unit: "×"
        }
      ],
      notes: [
        "CPU = the client worker process only; server CPU = the server child's, same window (/proc, 10 ms ticks)",
        "calls/s is bound by the server where its CPU/call × calls/s ≈ 1 s/s: then compare client CPU, not calls/s",
        "1st conn = the worker's first connection (its client imported before: what it loads on first use counts),",
        "with the CPU the client process spent in it; warm connect = median of fresh connections after the",
        "throughput run (server and client code warm);",
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
      dualEraServer: true,
      worker: "stdio-connect",
      // Each connect starts a server process (~0.45 s): two per round left the medians to one
      // busy moment (v1 "ahead" by 60 ms that six connects on an idle machine did not show).
      params: { connects: quick ? 1 : 6 },
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
        "'serving stdio' (a preloaded hook notes the time) to the first tools/list answered; not measured",
        "when a connect starts two server processes (v2-auto probes on a first one: its total includes",
        "that one's start-up too)"
      ]
    },
    {
      id: "era-cache",
      title: "stdio connect, protocol auto, legacy server silent on server/discover: the era remembered (facade)",
      worker: "era-cache",
      // Spawning a node process dominates a connect and varies by ±200 ms on a busy machine:
      // ten pairs per round keep the median of the differences near the cache's own cost.
      params: { connects: quick ? 2 : 10 },
      clients: ["ours-promise"],
      rounds: rounds(2),
      columns: [
        { header: "1st auto ms", key: "firstConnectMs", digits: 0 },
        { header: "remembered ms", key: "rememberedConnectMs", digits: 0 },
        { header: "legacy ms", key: "legacyConnectMs", digits: 0 },
        { header: "remembered−legacy", key: "rememberedOverLegacyMs", digits: 1 }
      ],
      ratios: [],
      targets: [
        { label: "auto, era remembered ≤ legacy + 50 ms", key: "rememberedOverLegacyMs", max: 50, unit: "ms" }
      ],
      notes: [
        "connect() to the fake server with a scripted silence on server/discover (default discoverTimeout, 5 s),",
        "spawn → connected: 1st auto = an empty era file (the probe times out, then initialize); remembered =",
        "auto with the era in that file (initialize at once); legacy = protocol: \"legacy\", no era file;",
        "medians of the connects after one warm-up; remembered−legacy = median of the differences paired per connect"
      ]
    },
    fanoutSpec(quick, rounds(1)),
    reconnectSpec("stdio", quick, rounds(2)),
    reconnectSpec("http", quick, rounds(2)),
    FirstContact.spec({ quick, rounds: rounds(5) })
  ]
}

const hostClients: ReadonlyArray<ClientName> = ["ours", "ours-promise", "v1", "v2-legacy", "v2-auto"]

/** Issue #37: one host, many servers (`fanout.ts`). */
const fanoutSpec = (quick: boolean, rounds: number): Spec => {
  const httpServers = positiveInt("BENCH_FANOUT_HTTP", quick ? 100 : 1000)
  const stdioServers = positiveInt("BENCH_FANOUT_STDIO", quick ? 10 : 100)
  return {
    id: "fanout",
    title:
      `fan-out: one host, ${httpServers} Streamable HTTP servers (4 fake fleet processes) + ${stdioServers} stdio ` +
      "servers; ours one client, the official clients one per server",
    worker: "fanout",
    params: {
      httpServers,
      serverProcesses: 4,
      stdioServers,
      connectConcurrency: 16,
      calls: positiveInt("BENCH_FANOUT_CALLS", quick ? 1000 : 10_000),
      inFlight: 64
    },
    clients: hostClients,
    rounds,
    columns: [
      { header: "connect all ms", key: "connectAllMs", digits: 0 },
      { header: "its CPU ms", key: "connectCpuMs", digits: 0 },
      { header: "listTools ms", key: "listToolsMs", digits: 0 },
      { header: "its CPU ms", key: "listToolsCpuMs", digits: 0 },
      { header: "tools", key: "tools", digits: 0 },
      { header: "calls/s", key: "callsPerSec", digits: 0 },
      { header: "CPU ms/call", key: "cpuMsPerCall", digits: 3 },
      ...tailColumns("ms", 1, 1),
      { header: "KiB heap/conn", key: "heapPerConnection", digits: 0, scale: 1 / 1024 },
      { header: "KiB RSS/conn", key: "rssPerConnection", digits: 0, scale: 1 / 1024 }
    ],
    ratios: [
      { label: "fan-out connect all", key: "connectAllMs", better: "lower" },
      { label: "  its client CPU", key: "connectCpuMs", better: "lower" },
      { label: "fan-out aggregated listTools", key: "listToolsMs", better: "lower" },
      { label: "  its client CPU", key: "listToolsCpuMs", better: "lower" },
      { label: "fan-out 64-in-flight calls/s", key: "callsPerSec", better: "higher" },
      { label: "  CPU/call", key: "cpuMsPerCall", better: "lower" },
      ...tailRatios,
      { label: "fan-out heap/connection", key: "heapPerConnection", better: "lower" }
    ],
    notes: [
      "connect all = from the first connect to every server connected, 16 at a time (ours: `lazy` and",
      "`maxConcurrentConnects: 16`, then each server's `connect`; the facade: `connect` with the bound);",
      "the official clients: one client per server, the bench opening 16 at a time); listTools = every",
      "server's tools in one list (the official clients: every client's listTools at once); calls = `echo`,",
      "call i to server i mod servers, 64 in flight, after one warm-up call to every server; heap/RSS per",
      "connection = after − before connect all (two GCs each) ÷ servers; the fake HTTP servers answer JSON"
    ]
  }
}

/** Issue #37: time until calls succeed again after the server is lost (`reconnect.ts`). */
const reconnectSpec = (lose: "stdio" | "http", quick: boolean, rounds: number): Spec => ({
  id: `reconnect-${lose}`,
  title: lose === "stdio"
    ? "reconnect: stdio server killed under load (8 in flight) → a call succeeds again (fake server)"
    : "reconnect: HTTP server forgets its sessions under load (8 in flight) → a call succeeds again (fake)",
  worker: "reconnect",
  params: { lose, losses: quick ? 2 : 5, inFlight: 8 },
  clients: hostClients,
  rounds,
  columns: [
    { header: "recover ms", key: "recoverMs", digits: 1 },
    { header: "worst ms", key: "recoverMaxMs", digits: 1 },
    { header: "failed calls/loss", key: "failedPerLoss", digits: 0 }
  ],
  ratios: [{ label: `reconnect ${lose}: time to recover`, key: "recoverMs", better: "lower" }],
  notes: [
    "recover = from the loss (SIGKILL of the server / the fleet forgetting every session) to the first",
    "success of a call started after it, median of the losses; ours: supervised reconnect (`reconnect`),",
    "no host code; the official clients: the host code of reconnect.ts (a failed call replaces its session,",
    "once, and is retried once); failed calls/loss: calls the host saw fail (ours re-sends no tools/call)"
  ]
})
