/**
 * The first-contact benchmark: what a user's first program costs with each client, every figure
 * from a fresh process (`first-contact-child.ts`): (a) importing the package, (b) a one-shot
 * process that imports, connects to the fake server over stdio, calls `echo`, closes and exits,
 * (c) RSS after connect and after a run of calls, (d) our CLI bundle (`--version`, `call echo`),
 * (e) the first Streamable HTTP connection of a process, to a warm server (issue #37's cold
 * connect, with the first stdio connection of (b)).
 *
 * @since 0.2.0
 */
import { fileURLToPath } from "node:url"
import type { ClientName, ProcessOutcome } from "./common.js"
import { cliBin, fakeServerBin, processFailure, runProcess, startHttpServer, workerResultOf } from "./common.js"
import type { Measured, Spec, Target } from "./specs.js"
import type { WorkerResult } from "./workers.js"

const childPath = fileURLToPath(new URL("./first-contact-child.js", import.meta.url))
const PROCESS_TIMEOUT_MS = 60_000
const MiB = 1024 * 1024

/** One process of a client's measurement. */
interface Step {
  /** Its process wall time becomes the metric `<name>ProcessMs`. */
  readonly name: string
  readonly result: WorkerResult
  readonly wallMs: number
  readonly warnings: number
}

/**
 * Machines here set `NODE_EXTRA_CA_CERTS`, which costs every Node process ~90 ms at start-up:
 * it is left out (clients, CLI and servers alike) unless `BENCH_FIRST_CONTACT_ENV=inherit`.
 */
const keepsCaCerts = () => process.env.BENCH_FIRST_CONTACT_ENV === "inherit"

const childEnv = (): NodeJS.ProcessEnv => {
  if (keepsCaCerts()) return process.env
  const { NODE_EXTRA_CA_CERTS: _dropped, ...rest } = process.env
  return rest
}

const step = async (
  name: string,
  args: ReadonlyArray<string>,
  resultOf: (outcome: ProcessOutcome) => WorkerResult
): Promise<Step> => {
  const outcome = await runProcess(args, { timeoutMs: PROCESS_TIMEOUT_MS, env: childEnv() })
  return { name, result: resultOf(outcome), wallMs: outcome.wallMs, warnings: outcome.warnings }
}

const inChild = (name: string, mode: string, client: ClientName, arg: string): Promise<Step> =>
  step(name, [childPath, mode, client, arg], workerResultOf)

/**
 * A fresh process's first connection to the dual-era SDK v2 server over Streamable HTTP. The
 * server is warmed first (a few raw sessions of each era), so that its own first requests (its
 * code compiled on first use) do not count as the client's.
 */
const httpConnect = async (client: ClientName): Promise<Step> => {
  const server = await startHttpServer()
  try {
    const { openRaw } = await import("./raw.js")
    for (const era of ["2025-11-25", "2026-07-28", "2025-11-25", "2026-07-28"] as const) {
      const session = await openRaw({ kind: "http", url: server.url }, era)
      await session.close()
    }
    return await inChild("httpConnect", "http-connect", client, server.url)
  } finally {
    await server.stop()
  }
}

/** A CLI run: fine when it exits 0 having printed `expected`. */
const cli = (name: string, args: ReadonlyArray<string>, expected: RegExp): Promise<Step> =>
  step(name, [cliBin, ...args], (outcome) => {
    if (outcome.code !== 0) return { ok: false, error: processFailure(outcome) }
    if (!expected.test(outcome.stdout.trim())) {
      return { ok: false, error: `printed ${JSON.stringify(outcome.stdout.slice(0, 80))}` }
    }
    return { ok: true, era: "-", metrics: {} }
  })

const echoCall = ["call", "echo", "--args", JSON.stringify({ message: "hi" })]

const cliSteps = async (): Promise<ReadonlyArray<Step>> => [
  await cli("cliVersion", ["--version"], /^\d+\.\d+\.\d+/),
  await cli("cliCall", echoCall, /^hi$/),
  await cli("cliFake", [...echoCall, "--target", `${process.execPath} ${fakeServerBin}`], /^hi$/)
]

/** The CLI's calls ÷ ours's one-shot of the same round (so their median is one of paired ratios). */
const perOneShot = (metrics: Readonly<Record<string, number>>): Record<string, number> => {
  const oneShot = metrics.oneShotProcessMs
  const ratios: Record<string, number> = {}
  for (const key of ["cliCallProcessMs", "cliFakeProcessMs"]) {
    const value = metrics[key]
    if (value !== undefined && oneShot !== undefined) ratios[`${key}PerOneShot`] = value / oneShot
  }
  return ratios
}

/** Every step's metrics in one result; a failed step leaves its metrics out and is named in `info.failed`. */
const merge = (steps: ReadonlyArray<Step>): Measured => {
  const metrics: Record<string, number> = {}
  const failed: Array<string> = []
  let era = "-"
  for (const s of steps) {
    if (!s.result.ok) {
      failed.push(`${s.name}: ${s.result.error}`)
      continue
    }
    Object.assign(metrics, s.result.metrics, { [`${s.name}ProcessMs`]: s.wallMs })
    if (s.result.era !== "-") era = s.result.era
  }
  Object.assign(metrics, perOneShot(metrics))
  const result: WorkerResult = failed.length === steps.length
    ? { ok: false, error: failed[0] ?? "no step" }
    : { ok: true, era, metrics, ...(failed.length === 0 ? {} : { info: { failed: failed.join("; ") } }) }
  return {
    result,
    warnings: steps.reduce((n, s) => n + s.warnings, 0),
    seconds: steps.reduce((n, s) => n + s.wallMs, 0) / 1000
  }
}

const ours: ClientName = "ours-promise"

/** A client's processes, one after another; ours's round adds the CLI's. */
const measure = async (client: ClientName, calls: number): Promise<Measured> => {
  const steps = [
    await inChild("import", "import", client, String(calls)),
    await inChild("oneShot", "one-shot", client, String(calls)),
    await inChild("rss", "rss", client, String(calls)),
    await httpConnect(client),
    ...client === ours ? await cliSteps() : []
  ]
  return merge(steps)
}

const v2 = "v2-legacy"

const standalone: ClientName = "ours-standalone"

/**
 * Issue #37's cold connect, for `ours` (a facade): the first Streamable HTTP connection of a
 * process ≤ 1.25× v2's, and the first stdio connection ≤ the raw loop's + 10 ms (paired in a round).
 */
const coldConnectTargets = (ours: ClientName): ReadonlyArray<Target> => [
  { label: "(e) first HTTP connect ≤ 1.25× v2", key: "httpConnectMs", peer: v2, ours, max: 1.25, unit: "×" },
  // v2 in auto mode probes the era first, as ours does: the like-for-like peer.
  {
    label: "(e) first HTTP connect ≤ 1.25× v2-auto",
    key: "httpConnectMs",
    peer: "v2-auto",
    ours,
    max: 1.25,
    unit: "×"
  },
  { label: "    … ÷ v1", key: "httpConnectMs", peer: "v1", ours, unit: "×" },
  { label: "    … its CPU ÷ v2", key: "httpConnectCpuMs", peer: v2, ours, unit: "×" },
  { label: "    … its CPU ÷ v2-auto", key: "httpConnectCpuMs", peer: "v2-auto", ours, unit: "×" },
  { label: "(e) first stdio connect ≤ raw + 10 ms", key: "connectMs", peer: "raw", ours, max: 10, unit: "+ms" },
  { label: "    … its CPU − raw's", key: "connectCpuMs", peer: "raw", ours, unit: "+ms" }
]

/** Issue #37's targets for the standalone facade (`@mcp-effect/node/standalone`). */
const standaloneTargets: ReadonlyArray<Target> = [
  { label: "(a) import CPU ≤ 1.25× v2", key: "importCpuMs", peer: v2, ours: standalone, max: 1.25, unit: "×" },
  { label: "(b) one-shot wall ≤ 1.1× v2", key: "oneShotProcessMs", peer: v2, ours: standalone, max: 1.1, unit: "×" },
  { label: "(c) RSS after connect ≤ v2", key: "rssConnect", peer: v2, ours: standalone, max: 1, unit: "×" },
  ...coldConnectTargets(standalone)
]

const targets: ReadonlyArray<Target> = [
  { label: "(a) import CPU ≤ 1.5× v2", key: "importCpuMs", peer: v2, max: 1.5, unit: "×" },
  { label: "    … with v2's stdio subpath imported too", key: "stdioImportCpuMs", peer: v2, unit: "×" },
  { label: "(b) one-shot wall ≤ 1.1× v1", key: "oneShotProcessMs", peer: "v1", max: 1.1, unit: "×" },
  { label: "(b) one-shot wall ahead of v2 (< 1×)", key: "oneShotProcessMs", peer: v2, max: 1, strict: true, unit: "×" },
  { label: "(c) RSS after connect ≤ 1.2× v2", key: "rssConnect", peer: v2, max: 1.2, unit: "×" },
  { label: "(d) CLI --version < 0.3 s", key: "cliVersionProcessMs", max: 300, strict: true, unit: "ms" },
  { label: "(d) CLI call echo (demo server) ≤ 1.2× (b)", key: "cliCallProcessMsPerOneShot", max: 1.2, unit: "×" },
  { label: "    … CLI call echo to the fake server ÷ (b)", key: "cliFakeProcessMsPerOneShot", unit: "×" },
  ...coldConnectTargets(ours),
  ...standaloneTargets
]

/**
 * The first-contact benchmark for `npm run bench`: ours (`@mcp-effect/node`'s `connect`), SDK v1,
 * SDK v2 (legacy, its default, and auto) and the raw loop, in rotated order each round.
 *
 * @since 0.2.0
 * @category specs
 */
export const spec = (options: { readonly quick: boolean; readonly rounds: number }): Spec => {
  const calls = options.quick ? 100 : 1000
  return {
    id: "first-contact",
    title: "first contact: fresh processes against the fake stdio server (and our CLI bundle)",
    worker: (client) => measure(client, calls),
    params: { calls },
    clients: [ours, standalone, "v1", "v2-legacy", "v2-auto", "raw"],
    rounds: options.rounds,
    columns: [
      { header: "imp CPU", key: "importCpuMs", digits: 0 },
      { header: "imp ms", key: "importWallMs", digits: 0 },
      { header: "1shot ms", key: "oneShotProcessMs", digits: 0 },
      { header: "1shot CPU", key: "oneShotCpuMs", digits: 0 },
      { header: "conn ms", key: "connectMs", digits: 0 },
      { header: "conn CPU", key: "connectCpuMs", digits: 0 },
      { header: "exit ms", key: "exitMs", digits: 0 },
      { header: "RSS conn", key: "rssConnect", digits: 0, scale: 1 / MiB },
      { header: `RSS ${calls}`, key: "rssCalls", digits: 0, scale: 1 / MiB },
      { header: "cli -v ms", key: "cliVersionProcessMs", digits: 0 },
      { header: "cli call", key: "cliCallProcessMs", digits: 0 },
      { header: "cli→fake", key: "cliFakeProcessMs", digits: 0 },
      { header: "HTTP conn", key: "httpConnectMs", digits: 0 },
      { header: "HTTP CPU", key: "httpConnectCpuMs", digits: 0 }
    ],
    ratios: [
      { label: "1st contact: import CPU", key: "importCpuMs", better: "lower" },
      { label: "1st contact: import wall", key: "importWallMs", better: "lower" },
      { label: "1st contact: one-shot wall", key: "oneShotProcessMs", better: "lower" },
      { label: "1st contact: one-shot CPU", key: "oneShotCpuMs", better: "lower" },
      { label: "1st contact: RSS connect", key: "rssConnect", better: "lower" },
      { label: `1st contact: RSS ${calls} calls`, key: "rssCalls", better: "lower" },
      { label: "1st contact: first stdio connect", key: "connectMs", better: "lower" },
      { label: "1st contact: first HTTP connect", key: "httpConnectMs", better: "lower" },
      { label: "  its client CPU", key: "httpConnectCpuMs", better: "lower" }
    ],
    targets,
    notes: [
      "every figure from a fresh process; imp = CPU (user+sys) and wall ms around the dynamic import of",
      "@mcp-effect/node | @mcp-effect/node/standalone | sdk client/index.js + client/stdio.js | @modelcontextprotocol/client (raw: none);",
      "1shot = spawn → exit as the parent sees it, of a process that imports, connects, calls echo once,",
      "closes and exits by itself; its CPU = the process's own (not the server's), read at its exit event;",
      "conn = its connect, wall and the process's CPU (ours and v2-auto probe server/discover first);",
      "exit = close resolved → exit event;",
      "RSS MiB (no forced GC) right after connect and after the calls, a process of its own;",
      "cli = node packages/cli/bundle/mcp-effect.js: --version; call echo (embedded in-memory demo server:",
      "no server process); cli→fake = the same call to the fake server (--target), spawn → exit each",
      "HTTP conn = a fresh process's first Streamable HTTP connection (after its imports; v1's include its",
      "streamableHttp.js), wall and CPU, to the dual-era SDK v2 server, warmed first by raw sessions of both eras",
      "targets: v2 = v2 2.4.0 legacy, the SDK v2 client's default negotiation; (d) ÷ (b) = paired in a round;",
      "+ ms = median of ours − peer paired in a round",
      keepsCaCerts()
        ? "environment inherited as is (BENCH_FIRST_CONTACT_ENV=inherit)"
        : "NODE_EXTRA_CA_CERTS left out of every process here (~90 ms of start-up each on this kind of machine)"
    ]
  }
}
