/**
 * The benchmarks as they run inside one worker process, for one client. Each prints (through
 * `main.ts`) one JSON line: a {@link WorkerResult}.
 *
 * @since 0.1.0
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ClientName, Endpoint } from "./common.js"
import {
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
import type { Session } from "./peers.js"
import { open, preload } from "./peers.js"

/** @since 0.1.0 */
export const workerNames = ["stdio-echo", "http", "stdio-large", "stdio-connect"] as const

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
  body: (session: Session, connectMs: number) => Promise<WorkerResult>
): Promise<WorkerResult> => {
  const started = performance.now()
  const session = await within(open(client, endpoint), CALL_TIMEOUT_MS, "connect")
  const connectMs = performance.now() - started
  try {
    return await body(session, connectMs)
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
    checkEcho(await session.callTool("echo", echoArgs))
    await session.sequential(warmup, "echo", echoArgs)
    const serverCpu = childrenCpuMs()
    const cpu = process.cpuUsage()
    const start = performance.now()
    await profiled(() => session.sequential(calls, "echo", echoArgs))
    const wallMs = performance.now() - start
    const cpuMs = cpuMsSince(cpu)
    const sysMs = process.cpuUsage(cpu).system / 1000
    return {
      ok: true,
      era: session.era,
      metrics: {
        callsPerSec: calls / (wallMs / 1000),
        cpuMsPer1000: cpuMs / calls * 1000,
        sysMsPer1000: sysMs / calls * 1000,
        serverCpuMsPer1000: (childrenCpuMs() - serverCpu) / calls * 1000,
        connectMs
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
    const throughput = await withSession(client, endpoint, async (session, connectMs) => {
      await session.listTools()
      checkEcho(await session.callTool("echo", echoArgs))
      await session.concurrent(warmup, inFlight, "echo", echoArgs)
      const serverCpu = childrenCpuMs()
      const cpu = process.cpuUsage()
      const start = performance.now()
      await profiled(() => session.concurrent(calls, inFlight, "echo", echoArgs))
      const wallMs = performance.now() - start
      const cpuMs = cpuMsSince(cpu)
      return {
        ok: true,
        era: session.era,
        metrics: {
          callsPerSec: calls / (wallMs / 1000),
          cpuMsPerCall: cpuMs / calls,
          serverCpuMsPerCall: (childrenCpuMs() - serverCpu) / calls,
          firstConnectMs: connectMs
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

const stdioLarge = (client: ClientName, params: Params): Promise<WorkerResult> => {
  const bytes = params.bytes ?? 8 * 1024 * 1024
  const reps = params.reps ?? 1
  const gc = (globalThis as { gc?: () => void }).gc
  return withSession(client, fakeStdio, async (session) => {
    for (let i = 0; i < 20; i++) await session.callTool("blob", { bytes: 1024 })
    const call = async () => {
      const start = performance.now()
      const result = await within(session.callTool("blob", { bytes }), CALL_TIMEOUT_MS, "blob")
      const wallMs = performance.now() - start
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
  const readyAt = () => {
    const lines = readFileSync(readyFile, "utf8").trim().split("\n")
    return Number(lines[lines.length - 1])
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
      afterReadyMs.push(done - readyAt())
      await closeQuietly(session)
    }
    return {
      ok: true,
      era,
      metrics: { connectMs: median(connectMs), firstListMs: median(listMs), afterReadyMs: median(afterReadyMs) }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
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
        return await stdioLarge(client, params)
      case "stdio-connect":
        return await stdioConnect(client, params)
    }
  } catch (error) {
    return { ok: false, error: errorMessage(error) }
  }
}
