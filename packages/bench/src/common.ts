/**
 * What the parent and the workers of `npm run bench` share: client and benchmark names, paths,
 * the servers, and small measuring helpers.
 *
 * @since 0.1.0
 */
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import type { WorkerResult } from "./workers.js"

/**
 * Every client the bench knows. `raw` speaks 2025-11-25, `raw-2026` speaks 2026-07-28; both
 * are the floor of their era.
 *
 * @since 0.1.0
 */
export const clientNames = [
  "ours",
  "ours-promise",
  "ours-standalone",
  "ours-runtime",
  "ours-from-runtime",
  "v1",
  "v2-legacy",
  "v2-auto",
  "raw",
  "raw-2026"
] as const

/** @since 0.1.0 */
export type ClientName = typeof clientNames[number]

/** @since 0.1.0 */
export const labels: Record<ClientName, string> = {
  ours: "ours (Effect loop)",
  "ours-promise": "ours (Promise facade)",
  "ours-standalone": "ours (standalone)",
  "ours-runtime": "ours (runPromise/call)",
  "ours-from-runtime": "ours (fromRuntime)",
  v1: "v1 sdk 1.32.2",
  "v2-legacy": "v2 2.4.0 legacy",
  "v2-auto": "v2 2.4.0 auto",
  raw: "raw 2025-11-25",
  "raw-2026": "raw 2026-07-28"
}

/** @since 0.1.0 */
export const isClientName = (s: string): s is ClientName => (clientNames as ReadonlyArray<string>).includes(s)

/**
 * Where a client connects to.
 *
 * @since 0.1.0
 */
export type Endpoint =
  | {
    readonly kind: "stdio"
    readonly command: string
    readonly args: ReadonlyArray<string>
    readonly env: Record<string, string>
  }
  | { readonly kind: "http"; readonly url: string }

/** @since 0.1.0 */
export const selfPath = fileURLToPath(new URL("./main.js", import.meta.url))

/** The fake server of `@mcp-effect/testing` (legacy era only; tools `echo`, `blob`). @since 0.1.0 */
export const fakeServerBin = fileURLToPath(new URL("../../testing/bundle/fake-server.js", import.meta.url))

/** The CLI bundle of `@mcp-effect/cli` (`npm run build` writes it). @since 0.2.0 @category paths */
export const cliBin = fileURLToPath(new URL("../../cli/bundle/mcp-effect.js", import.meta.url))

/** The dual-era peer built on the official SDK v2 server (`stdio` or `http <port>`). @since 0.1.0 */
export const dualEraServer = fileURLToPath(new URL("../../node/test/peers/dual-era-server.mjs", import.meta.url))

/** The large-result HTTP server of the bench (`json` or `sse` replies; legacy era). @since 0.2.0 @category paths */
export const blobServer = fileURLToPath(new URL("./blob-server.js", import.meta.url))

const readyHook = new URL("./ready-hook.js", import.meta.url).href

/** Every client gives the server the same, complete environment (the SDKs would otherwise trim it). @since 0.1.0 */
export const serverEnv: Record<string, string> = Object.fromEntries(
  Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined)
)

/** @since 0.1.0 */
export const fakeStdio: Endpoint = { kind: "stdio", command: process.execPath, args: [fakeServerBin], env: serverEnv }

/** @since 0.1.0 */
export const dualStdio: Endpoint = {
  kind: "stdio",
  command: process.execPath,
  args: [dualEraServer, "stdio"],
  env: serverEnv
}

/** The clock the ready hook writes: wall-clock ms since the epoch, sub-millisecond. @since 0.1.0 */
export const epochMs = (): number => performance.timeOrigin + performance.now()

/**
 * The dual-era stdio server with the ready hook preloaded: it appends the time it became ready
 * to `readyFile`.
 *
 * @since 0.1.0
 */
export const dualStdioWithReadyHook = (readyFile: string): Endpoint => ({
  kind: "stdio",
  command: process.execPath,
  args: ["--import", readyHook, dualEraServer, "stdio"],
  env: { ...serverEnv, BENCH_READY_FILE: readyFile }
})

/** User + system CPU of a `process.cpuUsage()` reading, in ms. @since 0.2.0 @category utils */
export const cpuMs = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1000

/** @since 0.1.0 */
export const cpuMsSince = (start: NodeJS.CpuUsage): number => cpuMs(process.cpuUsage(start))

/**
 * CPU time (user + system, ms) used so far by this process's live child processes (the servers),
 * from `/proc` (clock ticks taken as 100 Hz); `NaN` where there is no `/proc`.
 *
 * @since 0.1.0
 */
export const childrenCpuMs = (): number => {
  const children = childStats()
  return children === undefined ? Number.NaN : children.reduce((total, child) => total + child.cpuMs, 0)
}

/**
 * The process ids of this process's live children, from `/proc` (empty where there is none).
 *
 * @since 0.2.0
 * @category utils
 */
export const childPids = (): Array<number> => (childStats() ?? []).map((child) => child.pid)

/** This process's live children and their CPU (ms), from `/proc`; `undefined` without `/proc`. */
const childStats = (): Array<{ readonly pid: number; readonly cpuMs: number }> | undefined => {
  let entries: Array<string>
  try {
    entries = readdirSync("/proc")
  } catch {
    return undefined
  }
  const children: Array<{ readonly pid: number; readonly cpuMs: number }> = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (Number(fields[1]) !== process.pid) continue
      children.push({ pid: Number(entry), cpuMs: (Number(fields[11]) + Number(fields[12])) * 10 })
    } catch {
      // the process is gone
    }
  }
  return children
}

/**
 * Runs `f` under the V8 CPU profiler when `BENCH_CPU_PROFILE` names a file (the `.cpuprofile`
 * then covers the measured calls only, unlike `node --cpu-prof`).
 *
 * @since 0.1.0
 */
export const profiled = async <A>(f: () => Promise<A>): Promise<A> => {
  const file = process.env.BENCH_CPU_PROFILE
  if (file === undefined || file === "") return f()
  const { Session } = await import("node:inspector/promises")
  const session = new Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.start")
  try {
    return await f()
  } finally {
    const { profile } = await session.post("Profiler.stop")
    writeFileSync(file, JSON.stringify(profile))
    session.disconnect()
  }
}

/** @since 0.1.0 */
export const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** @since 0.1.0 */
export const errorMessage = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  const oneLine = message.replace(/\s+/g, " ").trim()
  return oneLine.length > 160 ? `${oneLine.slice(0, 157)}...` : oneLine
}

/** Rejects when `promise` has not settled within `ms`. @since 0.1.0 */
export const within = <A>(promise: Promise<A>, ms: number, what: string): Promise<A> => {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/**
 * Peak resident set size of this process: Linux's VmHWM (reset through `/proc/self/clear_refs`),
 * else a sampler of `process.memoryUsage.rss()` every 2 ms (which misses peaks while the event
 * loop is busy).
 *
 * @since 0.1.0
 */
export interface PeakRss {
  readonly method: "VmHWM" | "sampled"
  /** Starts a new peak from the current RSS. */
  readonly reset: () => void
  readonly current: () => number
  readonly peak: () => number
  readonly stop: () => void
}

/** @since 0.1.0 */
export const makePeakRss = (): PeakRss => {
  const status = (field: string): number | undefined => {
    try {
      const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync("/proc/self/status", "utf8"))
      return match === null ? undefined : Number(match[1]) * 1024
    } catch {
      return undefined
    }
  }
  const resettable = (() => {
    try {
      writeFileSync("/proc/self/clear_refs", "5")
      return status("VmHWM") !== undefined
    } catch {
      return false
    }
  })()
  if (resettable) {
    return {
      method: "VmHWM",
      reset: () => writeFileSync("/proc/self/clear_refs", "5"),
      current: () => status("VmRSS") ?? process.memoryUsage.rss(),
      peak: () => status("VmHWM") ?? Number.NaN,
      stop: () => {}
    }
  }
  let peak = process.memoryUsage.rss()
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss())
  }, 2)
  return {
    method: "sampled",
    reset: () => {
      peak = process.memoryUsage.rss()
    },
    current: () => process.memoryUsage.rss(),
    peak: () => Math.max(peak, process.memoryUsage.rss()),
    stop: () => clearInterval(timer)
  }
}

/**
 * Starts the dual-era peer on HTTP (port 0; or the server `args` name) and resolves with its `/mcp` URL once it prints
 * `listening <port>`. Its stderr (a line per request) is discarded.
 *
 * @since 0.1.0
 */
export const startHttpServer = async (
  args: ReadonlyArray<string> = [dualEraServer, "http", "0"]
): Promise<{ readonly url: string; readonly stop: () => Promise<void> }> => {
  const child: ChildProcess = spawn(process.execPath, args, {
    env: serverEnv,
    stdio: ["ignore", "pipe", "ignore"]
  })
  const killOnExit = () => child.kill("SIGKILL")
  process.once("exit", killOnExit)
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const port = await within(
    new Promise<number>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout! })
      lines.on("line", (line) => {
        const match = /^listening (\d+)$/.exec(line.trim())
        if (match !== null) resolve(Number(match[1]))
      })
      child.once("error", reject)
      child.once("exit", (code, signal) => reject(new Error(`HTTP server exited early (${signal ?? code})`)))
    }),
    30_000,
    "HTTP server start"
  )
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      process.removeListener("exit", killOnExit)
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM")
        await within(exited, 3000, "HTTP server stop").catch(() => child.kill("SIGKILL"))
      }
    }
  }
}

/**
 * What {@link runProcess} saw of one child process.
 *
 * @since 0.2.0
 * @category models
 */
export interface ProcessOutcome {
  /** From just before `spawn` to the child's `exit` event, ms. */
  readonly wallMs: number
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  /** The end of stderr, without Node's `MaxListenersExceededWarning` lines. */
  readonly stderrTail: string
  /** Lines of `MaxListenersExceededWarning` on stderr. */
  readonly warnings: number
  readonly timedOut: boolean
  /** Why the process could not be started, if it could not. */
  readonly startError?: string | undefined
}

let running: ChildProcess | undefined

const killGroup = (child: ChildProcess) => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
  } catch {
    child.kill("SIGKILL")
  }
}

/**
 * Kills the process {@link runProcess} is waiting for, with its process group (for a signal
 * handler of the parent).
 *
 * @since 0.2.0
 * @category utils
 */
export const killRunning = (): void => {
  if (running !== undefined) killGroup(running)
}

/** Collects stderr: counts `MaxListenersExceededWarning` lines, keeps the tail of the rest. */
const stderrCollector = () => {
  let tail = ""
  let warnings = 0
  let partial = ""
  return {
    onData: (chunk: string) => {
      const lines = (partial + chunk).split("\n")
      partial = lines.pop() ?? ""
      for (const line of lines) {
        if (line.includes("MaxListenersExceededWarning")) warnings++
        else if (line.trim() !== "" && !line.includes("--trace-warnings")) tail = (tail + line + "\n").slice(-2000)
      }
    },
    tail: () => (tail + partial).trim(),
    warnings: () => warnings
  }
}

/**
 * Runs `node <args>` to its end, one at a time, as the leader of a process group of its own (so
 * a stuck one goes down with its servers after `timeoutMs`), and times it from spawn to exit.
 *
 * @since 0.2.0
 * @category utils
 */
export const runProcess = (
  args: ReadonlyArray<string>,
  options: { readonly timeoutMs: number; readonly env?: NodeJS.ProcessEnv | undefined }
): Promise<ProcessOutcome> =>
  new Promise((resolve) => {
    const began = performance.now()
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], detached: true, env: options.env })
    running = child
    let stdout = ""
    let exitedAt: number | undefined
    const stderr = stderrCollector()
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding("utf8").on("data", stderr.onData)
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      killGroup(child)
    }, options.timeoutMs)
    const finish = (code: number | null, signal: NodeJS.Signals | null, startError?: string) => {
      clearTimeout(timer)
      running = undefined
      const wallMs = (exitedAt ?? performance.now()) - began
      resolve({
        wallMs,
        code,
        signal,
        stdout,
        stderrTail: stderr.tail(),
        warnings: stderr.warnings(),
        timedOut,
        startError
      })
    }
    child.on("exit", () => {
      exitedAt = performance.now()
    })
    child.on("error", (error) => finish(null, null, error.message))
    child.on("close", (code, signal) => finish(code, signal))
  })

/**
 * Why a process gave no result: it could not start, timed out, or ended without one (with the
 * last line of its stderr).
 *
 * @since 0.2.0
 * @category utils
 */
export const processFailure = (outcome: ProcessOutcome): string => {
  if (outcome.startError !== undefined) return `could not start: ${outcome.startError}`
  const why = outcome.timedOut
    ? `timed out after ${(outcome.wallMs / 1000).toFixed(0)} s`
    : `ended with ${outcome.signal ?? `code ${outcome.code}`}`
  const detail = outcome.stderrTail.split("\n").pop() ?? ""
  return detail === "" ? why : `${why}: ${detail.slice(0, 160)}`
}

/**
 * The {@link WorkerResult} a worker process printed as its last line of stdout, or a failed one
 * that says why there is none.
 *
 * @since 0.2.0
 * @category utils
 */
export const workerResultOf = (outcome: ProcessOutcome): WorkerResult => {
  const last = outcome.stdout.trim().split("\n").pop() ?? ""
  try {
    return JSON.parse(last) as WorkerResult
  } catch {
    return { ok: false, error: processFailure(outcome) }
  }
}

/**
 * `f` on each item, at most `concurrency` at a time (in order of start); rejects with the first
 * failure, after the calls already started have settled.
 *
 * @since 0.2.0
 * @category utils
 */
export const forEachBounded = async <A, B>(
  items: ReadonlyArray<A>,
  concurrency: number,
  f: (item: A, index: number) => Promise<B>
): Promise<Array<B>> => {
  const results: Array<B> = new Array(items.length)
  let next = 0
  let failure: { readonly error: unknown } | undefined
  const lane = async () => {
    while (next < items.length && failure === undefined) {
      const index = next++
      try {
        results[index] = await f(items[index]!, index)
      } catch (error) {
        failure ??= { error }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, lane))
  if (failure !== undefined) throw failure.error
  return results
}
