/**
 * The benchmarks as they run inside one worker process, for one client. Each prints (through
 * `main.ts`) one JSON line: a {@link WorkerResult}.
 *
 * @since 0.1.0
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { writeHeapSnapshot } from "node:v8"
import type { ClientName, Endpoint } from "./common.js"
import {
  blobServer,
  childrenCpuMs,
  cpuMsSince,
  dualStdio,
  dualStdioWithReadyHook,
  epochMs,
  errorMessage,
  fakeStdio,
  makePeakRss,
  median,
  profiled,
  startHttpServer,
  within
} from "./common.js"
import { makeLatencies, tailMetrics } from "./latency.js"
import type { Session } from "./peers.js"
import { open, preload } from "./peers.js"

/** @since 0.1.0 */
export const workerNames = [
  "stdio-echo",
  "http",
  "stdio-large",
  "stdio-connect",
  "idle",
  "era-cache",
  "fanout",
  "reconnect"
] as const

/** @since 0.1.0 */
export type WorkerName = typeof workerNames[number]

/** @since 0.1.0 */
export interface Params {
  /** stdio-echo: measured calls; http: measured calls; first-contact: calls before the second RSS reading. */
  readonly calls?: number
  readonly warmup?: number
  /** http: requests outstanding at once. */
  readonly inFlight?: number
  /** http: fresh connections measured after the throughput run. */
  readonly connects?: number
  /** stdio-large: result size. */
  readonly bytes?: number
  /** stdio-large: calls of that size (the first one gives the peak RSS). */
  readonly reps?: number
  /** stdio-echo: which stdio server. */
  readonly server?: "fake" | "dual"
  /** idle: how many connections, and over which transport. */
  readonly connections?: number
  /** idle: connections opened before the first reading (default 1; more let V8 compile the connect path first). */
  readonly warm?: number
  readonly transport?: "http" | "stdio"
  /** stdio-large over `transport: "http"`: how the blob server replies. */
  readonly reply?: "json" | "sse"
  /** Large HTTP results: `dual` makes the blob server answer 2026-07-28's `server/discover` too. */
  readonly serverEra?: "legacy" | "dual"
  /** fanout: Streamable HTTP servers, over how many fleet processes, and stdio servers. */
  readonly httpServers?: number
  readonly serverProcesses?: number
  readonly stdioServers?: number
  /** fanout: servers connected at a time. */
  readonly connectConcurrency?: number
  /** reconnect: which server is lost (a stdio crash, or an HTTP server's sessions), how often. */
  readonly lose?: "stdio" | "http"
  readonly losses?: number
}

/** @since 0.1.0 */
export type WorkerResult =
  | {
    readonly ok: true
    readonly era: string
    readonly metrics: Readonly<Record<string, number>>
    readonly info?: Readonly<Record<string, string>>
  }
  | { readonly ok: false; readonly era?: string; readonly error: string }

/** The arguments of every `echo` call; its result's text is the message. @since 0.2.0 @category constants */
export const echoArgs = { message: "hi" }
const CALL_TIMEOUT_MS = 60_000

const textOf = (result: unknown): unknown =>
  (result as { readonly content?: ReadonlyArray<{ readonly text?: unknown }> } | undefined)?.content?.[0]?.text

/** Throws unless `result` is the answer to an `echo` of {@link echoArgs}. @since 0.2.0 @category utils */
export const checkEcho = (result: unknown): void => {
  if (textOf(result) !== "hi") throw new Error(`unexpected echo result: ${JSON.stringify(result).slice(0, 200)}`)
}

const closeQuietly = async (session: Session): Promise<void> => {
  await within(session.close(), 10_000, "close").catch(() => {})
}

/** Runs `body` on an open session, turning any failure into a failed result that names the era. */
const withSession = async (
  client: ClientName,
  endpoint: Endpoint,
  body: (session: Session, connectMs: number, connectCpuMs: number) => Promise<WorkerResult>
): Promise<WorkerResult> => {
  const cpu = process.cpuUsage()
  const started = performance.now()
  const session = await within(open(client, endpoint), CALL_TIMEOUT_MS, "connect")
  const connectMs = performance.now() - started
  const connectCpuMs = cpuMsSince(cpu)
  try {
    return await body(session, connectMs, connectCpuMs)
  } catch (error) {
    return { ok: false, era: session.era, error: errorMessage(error) }
  } finally {
    await closeQuietly(session)
  }
}

const stdioEcho = (client: ClientName, params: Params): Promise<WorkerResult> => {
  const calls = params.calls ?? 2000
  const warmup = params.warmup ?? 200
  return withSession(client, params.server === "dual" ? dualStdio : fakeStdio, async (session, connectMs) => {
    const rssAfterConnect = process.memoryUsage.rss()
    checkEcho(await session.callTool("echo", echoArgs))
    await session.sequential(warmup, "echo", echoArgs)
    const latencies = makeLatencies(calls)
    const serverCpu = childrenCpuMs()
    const cpu = process.cpuUsage()
    const start = performance.now()
    await profiled(() => session.sequential(calls, "echo", echoArgs, latencies))
    const wallMs = performance.now() - start
    const cpuMs = cpuMsSince(cpu)
    const sysMs = process.cpuUsage(cpu).system / 1000
    const rssAfterRun = process.memoryUsage.rss()
    return {
      ok: true,
      era: session.era,
      metrics: {
        callsPerSec: calls / (wallMs / 1000),
        cpuMsPer1000: cpuMs / calls * 1000,
        sysMsPer1000: sysMs / calls * 1000,
        serverCpuMsPer1000: (childrenCpuMs() - serverCpu) / calls * 1000,
        connectMs,
        rssAfterConnect,
        rssAfterRun,
        ...tailMetrics(latencies)
      }
    }
  })
}

const http = async (client: ClientName, params: Params): Promise<WorkerResult> => {
  const calls = params.calls ?? 2000
  const warmup = params.warmup ?? 200
  const inFlight = params.inFlight ?? 32
  const connects = params.connects ?? 5
  const server = await startHttpServer()
  const endpoint: Endpoint = { kind: "http", url: server.url }
  try {
    const throughput = await withSession(client, endpoint, async (session, connectMs, connectCpuMs) => {
      await session.listTools()
      checkEcho(await session.callTool("echo", echoArgs))
      await session.concurrent(warmup, inFlight, "echo", echoArgs)
      const latencies = makeLatencies(calls)
      const serverCpu = childrenCpuMs()
      const cpu = process.cpuUsage()
      const start = performance.now()
      await profiled(() => session.concurrent(calls, inFlight, "echo", echoArgs, latencies))
      const wallMs = performance.now() - start
      const cpuMs = cpuMsSince(cpu)
      return {
        ok: true,
        era: session.era,
        metrics: {
          callsPerSec: calls / (wallMs / 1000),
          cpuMsPerCall: cpuMs / calls,
          serverCpuMsPerCall: (childrenCpuMs() - serverCpu) / calls,
          firstConnectMs: connectMs,
          firstConnectCpuMs: connectCpuMs,
          ...tailMetrics(latencies)
        }
      }
    })
    if (!throughput.ok) return throughput
    // Warm connects: the server has served, the client's code is loaded and compiled.
    const connectMs: Array<number> = []
    const listMs: Array<number> = []
    for (let i = 0; i < connects; i++) {
      const started = performance.now()
      const session = await within(open(client, endpoint), CALL_TIMEOUT_MS, "connect")
      connectMs.push(performance.now() - started)
      await within(session.listTools(), CALL_TIMEOUT_MS, "tools/list")
      listMs.push(performance.now() - started)
      await closeQuietly(session)
    }
    return {
      ...throughput,
      metrics: { ...throughput.metrics, warmConnectMs: median(connectMs), warmConnectListMs: median(listMs) }
    }
  } finally {
    await server.stop()
  }
}

/** A large result over stdio (fake server), or over HTTP (`blob-server.ts`, JSON or SSE replies). */
const large = async (client: ClientName, params: Params): Promise<WorkerResult> => {
  if (params.transport !== "http") return largeOn(client, params, fakeStdio)
  const server = await startHttpServer([blobServer, params.reply ?? "json", params.serverEra ?? "legacy"])
  try {
    return await largeOn(client, params, { kind: "http", url: server.url })
  } finally {
    await server.stop()
  }
}

const largeOn = (client: ClientName, params: Params, endpoint: Endpoint): Promise<WorkerResult> => {
  const bytes = params.bytes ?? 8 * 1024 * 1024
  const reps = params.reps ?? 1
  const gc = (globalThis as { gc?: () => void }).gc
  const cpus: Array<number> = []
  return withSession(client, endpoint, async (session) => {
    for (let i = 0; i < 20; i++) await session.callTool("blob", { bytes: 1024 })
    const call = async () => {
      const start = performance.now()
      const cpu = process.cpuUsage()
      const result = await within(session.callTool("blob", { bytes }), CALL_TIMEOUT_MS, "blob")
      const wallMs = performance.now() - start
      cpus.push(cpuMsSince(cpu))
      const text = textOf(result)
      if (typeof text !== "string" || text.length !== bytes) {
        throw new Error(`blob result of ${typeof text === "string" ? text.length : typeof text} instead of ${bytes}`)
      }
      return wallMs
    }
    gc?.()
    const rss = makePeakRss()
    rss.reset()
    const baselineRss = rss.current()
    const walls = [await call()]
    const peakRss = rss.peak()
    rss.stop()
    for (let i = 1; i < reps; i++) {
      gc?.()
      walls.push(await call())
    }
    return {
      ok: true,
      era: session.era,
      metrics: {
        wallMs: median(walls),
        firstWallMs: walls[0]!,
        cpuMs: median(cpus),
        baselineRss,
        peakRss,
        deltaRss: peakRss - baselineRss,
        peakPerPayload: peakRss / bytes,
        deltaPerPayload: (peakRss - baselineRss) / bytes
      },
      info: { rssMethod: rss.method }
    }
  })
}

const stdioConnect = async (client: ClientName, params: Params): Promise<WorkerResult> => {
  const connects = params.connects ?? 3
  const dir = mkdtempSync(join(tmpdir(), "mcp-bench-"))
  const readyFile = join(dir, "ready")
  const endpoint = dualStdioWithReadyHook(readyFile)
  // When one connect started more than one server process (SDK v2 in auto mode probes on a
  // process of its own), "after the server was ready" has no single start: not measured.
  const readyAt = (): number | undefined => {
    const lines = readFileSync(readyFile, "utf8").trim().split("\n")
    return lines.length === 1 ? Number(lines[0]) : undefined
  }
  try {
    // Warm-up: loads and compiles the client's code; not measured.
    const warm = await withSession(client, endpoint, async (session) => {
      await session.listTools()
      return { ok: true, era: session.era, metrics: {} }
    })
    if (!warm.ok) return warm
    const connectMs: Array<number> = []
    const listMs: Array<number> = []
    const afterReadyMs: Array<number> = []
    let era = warm.era
    for (let i = 0; i < connects; i++) {
      rmSync(readyFile, { force: true })
      const started = performance.now()
      const session = await within(open(client, endpoint), CALL_TIMEOUT_MS, "connect")
      connectMs.push(performance.now() - started)
      era = session.era
      await within(session.listTools(), CALL_TIMEOUT_MS, "tools/list")
      const done = epochMs()
      listMs.push(performance.now() - started)
      const ready = readyAt()
      if (ready !== undefined) afterReadyMs.push(done - ready)
      await closeQuietly(session)
    }
    return {
      ok: true,
      era,
      metrics: {
        connectMs: median(connectMs),
        firstListMs: median(listMs),
        ...afterReadyMs.length === 0 ? {} : { afterReadyMs: median(afterReadyMs) }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * P7: memory per idle connection. One warm connection first (code loaded and compiled), then
 * `connections` more from this process to one endpoint (one HTTP server, or one stdio child
 * each), held open and idle; RSS and heap after a GC, before and after, per connection.
 */
const idle = async (client: ClientName, params: Params): Promise<WorkerResult> => {
  const n = params.connections ?? 200
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
  const server = params.transport === "stdio" ? undefined : await startHttpServer()
  const endpoint: Endpoint = server === undefined ? fakeStdio : { kind: "http", url: server.url }
  const sessions: Array<Session> = []
  // BENCH_HEAP_SNAPSHOT=PREFIX writes PREFIX-before/-after.heapsnapshot (read them with `heap-retainers.js`).
  const prefix = process.env.BENCH_HEAP_SNAPSHOT
  const settle = async (when: "before" | "after") => {
    await new Promise((resolve) => setTimeout(resolve, 200))
    gc()
    gc()
    const reading = { rss: process.memoryUsage.rss(), heap: process.memoryUsage().heapUsed }
    if (prefix !== undefined) writeHeapSnapshot(`${prefix}-${client}-${when}.heapsnapshot`)
    return reading
  }
  try {
    const warm = await within(open(client, endpoint), CALL_TIMEOUT_MS, "connect")
    sessions.push(warm)
    await warm.listTools()
    for (let i = 1; i < (params.warm ?? 1); i++) {
      sessions.push(await within(open(client, endpoint), CALL_TIMEOUT_MS, "connect"))
    }
    const before = await settle("before")
    let era = warm.era
    for (let i = 0; i < n; i++) {
      const session = await within(open(client, endpoint), CALL_TIMEOUT_MS, "connect")
      sessions.push(session)
      era = session.era
    }
    const after = await settle("after")
    return {
      ok: true,
      era,
      metrics: {
        connections: n,
        rssBefore: before.rss,
        rssAfter: after.rss,
        rssPerConnection: (after.rss - before.rss) / n,
        heapPerConnection: (after.heap - before.heap) / n
      }
    }
  } catch (error) {
    return { ok: false, error: errorMessage(error) }
  } finally {
    await Promise.all(sessions.map(closeQuietly))
    await server?.stop()
  }
}

/** @since 0.1.0 */
export const runWorker = async (worker: WorkerName, client: ClientName, params: Params): Promise<WorkerResult> => {
  try {
    await preload(client)
    switch (worker) {
      case "stdio-echo":
        return await stdioEcho(client, params)
      case "http":
        return await http(client, params)
      case "stdio-large":
        return await large(client, params)
      case "stdio-connect":
        return await stdioConnect(client, params)
      case "idle":
        return await idle(client, params)
      case "era-cache":
        // Loaded here: the first-contact children import this module after their client, and
        // `era-cache.js` imports the whole of `@mcp-effect/node`.
        return await (await import("./era-cache.js")).run(params)
      case "fanout":
        return await (await import("./fanout.js")).run(client, params)
      case "reconnect":
        return await (await import("./reconnect.js")).run(client, params)
    }
  } catch (error) {
    return { ok: false, error: errorMessage(error) }
  }
}
