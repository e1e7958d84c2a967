/**
 * `npm run bench`: sequential `tools/call echo` round trips over stdio against the fake server of
 * `@mcp-effect/testing`, for our client (inside one Effect, and through the Promise facade), the
 * official SDK (`@modelcontextprotocol/sdk`) and a hand-written JSON-RPC loop (the floor).
 *
 * Every run is a worker process of its own, so `process.cpuUsage` measures one client only; the
 * parent interleaves the clients in rounds (order rotated) and prints medians, and ratios as
 * medians of ratios paired within a round (absolute figures drift between runs; ratios hold).
 *
 *   node packages/bench/dist/main.js [--quick]
 *     env BENCH_CALLS (measured calls per run, default 5000), BENCH_WARMUP (default 1000),
 *     BENCH_ROUNDS (default 5); `--quick` is 200 calls, 50 warm-up, 1 round.
 *   node [--cpu-prof] packages/bench/dist/main.js --client ours|ours-promise|sdk|raw [--calls N] [--warmup N]
 *     one worker run; prints one JSON line.
 *
 * @since 0.1.0
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import * as Stdio from "@mcp-effect/client/Stdio"
import { connect } from "@mcp-effect/node/Connect"
import * as NodeChildProcess from "@mcp-effect/node/NodeChildProcess"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import { once } from "node:events"
import * as os from "node:os"
import { fileURLToPath } from "node:url"

const clients = ["ours", "ours-promise", "sdk", "raw"] as const
type ClientName = typeof clients[number]

const labels: Record<ClientName, string> = {
  ours: "ours (Effect loop)",
  "ours-promise": "ours (Promise facade)",
  sdk: "sdk 1.32.2",
  raw: "raw JSON-RPC (floor)"
}

/** What one worker run prints. */
interface RunResult {
  readonly client: ClientName
  readonly calls: number
  readonly connectMs: number
  readonly wallMs: number
  /** Client process CPU (user + system) over the measured calls. */
  readonly cpuMs: number
  readonly closeMs: number
}

interface Measured {
  readonly wallMs: number
  readonly cpuMs: number
}

const selfPath = fileURLToPath(import.meta.url)
const serverBin = fileURLToPath(new URL("../../testing/dist/bin.js", import.meta.url))

/** Every client gives the server the same, complete environment (the SDK would otherwise trim it). */
const serverEnv: Record<string, string> = Object.fromEntries(
  Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined)
)

const echoArgs = { message: "hi" }

const checkEcho = (result: unknown): void => {
  const content = (result as { readonly content?: ReadonlyArray<{ readonly text?: unknown }> } | undefined)?.content
  if (content?.[0]?.text !== "hi") throw new Error(`unexpected echo result: ${JSON.stringify(result)}`)
}

const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1000
}

const measurePromises = async (call: () => Promise<unknown>, calls: number, warmup: number): Promise<Measured> => {
  checkEcho(await call())
  for (let i = 0; i < warmup; i++) await call()
  const cpu = process.cpuUsage()
  const start = performance.now()
  for (let i = 0; i < calls; i++) await call()
  const wallMs = performance.now() - start
  return { wallMs, cpuMs: cpuMsSince(cpu) }
}

// ---------------------------------------------------------------------------------------------
// Workers
// ---------------------------------------------------------------------------------------------

const times = <E, R>(n: number, effect: Effect.Effect<unknown, E, R>): Effect.Effect<void, E, R> =>
  Effect.forEach(Array.from({ length: n }), () => effect, { discard: true })

const runOurs = (calls: number, warmup: number): Promise<RunResult> =>
  Effect.gen(function*() {
    const started = performance.now()
    const measured = yield* Effect.scoped(Effect.gen(function*() {
      const client = yield* McpClient.make({
        servers: [Stdio.config({ name: "fake", command: process.execPath, args: [serverBin], env: serverEnv })]
      })
      const connectMs = performance.now() - started
      const call = client.callTool("echo", echoArgs)
      checkEcho(yield* call)
      yield* times(warmup, call)
      const cpu = process.cpuUsage()
      const start = performance.now()
      yield* times(calls, call)
      const wallMs = performance.now() - start
      const cpuMs = cpuMsSince(cpu)
      return { connectMs, wallMs, cpuMs, closing: performance.now() }
    }))
    return {
      client: "ours",
      calls,
      connectMs: measured.connectMs,
      wallMs: measured.wallMs,
      cpuMs: measured.cpuMs,
      closeMs: performance.now() - measured.closing
    } satisfies RunResult
  }).pipe(Effect.provide(NodeChildProcess.layer), Effect.runPromise)

const runOursPromise = async (calls: number, warmup: number): Promise<RunResult> => {
  const started = performance.now()
  const client = await connect([process.execPath, serverBin], { name: "fake", env: serverEnv })
  const connectMs = performance.now() - started
  try {
    const measured = await measurePromises(() => client.callTool("echo", echoArgs), calls, warmup)
    const closing = performance.now()
    await client.close()
    return { client: "ours-promise", calls, connectMs, ...measured, closeMs: performance.now() - closing }
  } catch (error) {
    await client.close()
    throw error
  }
}

const runSdk = async (calls: number, warmup: number): Promise<RunResult> => {
  const started = performance.now()
  const client = new Client({ name: "mcp-effect-bench", version: "0.1.0" })
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [serverBin], env: serverEnv, stderr: "ignore" })
  )
  const connectMs = performance.now() - started
  try {
    const measured = await measurePromises(
      () => client.callTool({ name: "echo", arguments: echoArgs }),
      calls,
      warmup
    )
    const closing = performance.now()
    await client.close()
    return { client: "sdk", calls, connectMs, ...measured, closeMs: performance.now() - closing }
  } catch (error) {
    await client.close()
    throw error
  }
}

/** The floor: NDJSON over the child's pipes, one resolver per request id, nothing else. */
const runRaw = async (calls: number, warmup: number): Promise<RunResult> => {
  const started = performance.now()
  const child = spawn(process.execPath, [serverBin], { env: serverEnv, stdio: ["pipe", "pipe", "ignore"] })
  const exited = once(child, "exit")
  const waiting = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>()
  let buffered: Array<Buffer> = []
  const onLine = (line: string) => {
    const message = JSON.parse(line) as { id?: number; result?: unknown; error?: { message?: string } }
    if (typeof message.id !== "number") return
    const waiter = waiting.get(message.id)
    if (waiter === undefined) return
    waiting.delete(message.id)
    if (message.error !== undefined) waiter.reject(new Error(message.error.message ?? "JSON-RPC error"))
    else waiter.resolve(message.result)
  }
  child.stdout.on("data", (chunk: Buffer) => {
    let start = 0
    let newline = chunk.indexOf(10, start)
    while (newline !== -1) {
      buffered.push(chunk.subarray(start, newline))
      const line = buffered.length === 1 ? buffered[0]!.toString("utf8") : Buffer.concat(buffered).toString("utf8")
      buffered = []
      if (line.length > 0) onLine(line)
      start = newline + 1
      newline = chunk.indexOf(10, start)
    }
    if (start < chunk.length) buffered.push(chunk.subarray(start))
  })
  child.on("exit", (code) => {
    for (const waiter of waiting.values()) waiter.reject(new Error(`server exited with code ${code}`))
    waiting.clear()
  })
  let nextId = 1
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++
      waiting.set(id, { resolve, reject })
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n")
    })
  const close = async () => {
    child.stdin.end()
    await exited
  }
  try {
    await request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "mcp-effect-bench-raw", version: "0.1.0" }
    })
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n")
    const connectMs = performance.now() - started
    const params = { name: "echo", arguments: echoArgs }
    const measured = await measurePromises(() => request("tools/call", params), calls, warmup)
    const closing = performance.now()
    await close()
    return { client: "raw", calls, connectMs, ...measured, closeMs: performance.now() - closing }
  } catch (error) {
    child.kill("SIGKILL")
    throw error
  }
}

const workers: Record<ClientName, (calls: number, warmup: number) => Promise<RunResult>> = {
  ours: runOurs,
  "ours-promise": runOursPromise,
  sdk: runSdk,
  raw: runRaw
}

// ---------------------------------------------------------------------------------------------
// Parent
// ---------------------------------------------------------------------------------------------

const WORKER_TIMEOUT_MS = 120_000

const runWorker = (client: ClientName, calls: number, warmup: number): Promise<RunResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [selfPath, "--client", client, "--calls", String(calls), "--warmup", String(warmup)],
      { stdio: ["ignore", "pipe", "inherit"] }
    )
    let output = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), WORKER_TIMEOUT_MS)
    child.on("error", reject)
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      const last = output.trim().split("\n").pop() ?? ""
      if (code !== 0) return reject(new Error(`worker ${client} ended with ${signal ?? `code ${code}`}: ${last}`))
      try {
        resolve(JSON.parse(last) as RunResult)
      } catch {
        reject(new Error(`worker ${client} printed no result: ${JSON.stringify(output.slice(0, 500))}`))
      }
    })
  })

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const callsPerSecond = (r: RunResult): number => r.calls / (r.wallMs / 1000)
const cpuPer1000 = (r: RunResult): number => r.cpuMs / r.calls * 1000

const fixed = (n: number, digits: number): string => n.toFixed(digits)
const times2 = (n: number): string => `×${n.toFixed(2)}`
const row = (cells: ReadonlyArray<string>, widths: ReadonlyArray<number>): string =>
  cells.map((cell, i) => i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)).join("  ")

const positiveInt = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`)
  return n
}

const parent = async (quick: boolean): Promise<void> => {
  const calls = positiveInt("BENCH_CALLS", quick ? 200 : 5000)
  const warmup = positiveInt("BENCH_WARMUP", quick ? 50 : 1000)
  const rounds = positiveInt("BENCH_ROUNDS", quick ? 1 : 5)
  const cpus = os.cpus()
  console.log("mcp-effect bench: sequential tools/call echo over stdio, one worker process per run")
  console.log(`server  ${serverBin}`)
  console.log(
    `node ${process.version}, ${process.platform} ${process.arch}, ${cpus.length} CPU (${cpus[0]?.model ?? "?"})`
  )
  console.log(`${calls} measured calls after ${warmup} warm-up per run, ${rounds} round(s), order rotated\n`)

  const widths = [22, 9, 16, 11, 9]
  const header = row(["client", "calls/s", "CPU ms/1000 calls", "connect ms", "close ms"], widths)
  const byRound: Array<Record<ClientName, RunResult>> = []
  const began = performance.now()
  for (let round = 0; round < rounds; round++) {
    console.log(`round ${round + 1}/${rounds}`)
    console.log(`  ${header}`)
    const order = clients.map((_, i) => clients[(i + round) % clients.length]!)
    const results: Partial<Record<ClientName, RunResult>> = {}
    for (const client of order) {
      const r = await runWorker(client, calls, warmup)
      results[client] = r
      console.log(`  ${
        row([
          labels[client],
          fixed(callsPerSecond(r), 0),
          fixed(cpuPer1000(r), 1),
          fixed(r.connectMs, 1),
          fixed(r.closeMs, 1)
        ], widths)
      }`)
    }
    byRound.push(results as Record<ClientName, RunResult>)
  }

  console.log(`\nmedians over ${rounds} round(s)`)
  console.log(`  ${header}`)
  for (const client of clients) {
    const runs = byRound.map((r) => r[client])
    console.log(`  ${
      row([
        labels[client],
        fixed(median(runs.map(callsPerSecond)), 0),
        fixed(median(runs.map(cpuPer1000)), 1),
        fixed(median(runs.map((r) => r.connectMs)), 1),
        fixed(median(runs.map((r) => r.closeMs)), 1)
      ], widths)
    }`)
  }

  const ratio = (a: ClientName, b: ClientName, f: (r: RunResult) => number) =>
    median(byRound.map((r) => f(r[a]) / f(r[b])))
  const pairs: ReadonlyArray<readonly [ClientName, ClientName, string]> = [
    ["ours", "sdk", ""],
    ["ours", "raw", "  (target ≤ ×1.25 raw)"],
    ["ours-promise", "sdk", ""],
    ["ours-promise", "raw", ""],
    ["sdk", "raw", ""]
  ]
  console.log("\nratios (median of per-round ratios; calls/s > 1 is faster, CPU < 1 is cheaper)")
  const ratioWidths = [28, 15, 10]
  console.log(`  ${row(["", "calls/s", "CPU"], ratioWidths)}`)
  for (const [a, b, note] of pairs) {
    console.log(
      `  ${
        row([`${a} vs ${b}`, times2(ratio(a, b, callsPerSecond)), times2(ratio(a, b, cpuPer1000))], ratioWidths)
      }${note}`
    )
  }
  console.log(`\ntotal ${fixed((performance.now() - began) / 1000, 1)} s`)
}

const flag = (name: string): string | undefined => {
  const index = process.argv.indexOf(name)
  return index === -1 ? undefined : process.argv[index + 1]
}

const main = async (): Promise<void> => {
  const worker = flag("--client")
  if (worker === undefined) return parent(process.argv.includes("--quick"))
  if (!(clients as ReadonlyArray<string>).includes(worker)) {
    throw new Error(`unknown client ${JSON.stringify(worker)}; expected one of ${clients.join(", ")}`)
  }
  const result = await workers[worker as ClientName](Number(flag("--calls") ?? 2000), Number(flag("--warmup") ?? 200))
  process.stdout.write(JSON.stringify(result) + "\n")
}

main().then(
  () => {
    process.exitCode = 0
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.stack ?? error.message : String(error))
    process.exitCode = 1
  }
)
