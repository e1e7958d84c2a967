/**
 * `npm run soak`: the fault-injection soak. Calls `echo` over stdio and Streamable HTTP, both
 * eras, against servers that fail at random (seeded), then checks that every call settled once
 * with its own result, that no `tools/call` was received twice, that nothing leaked and that live
 * memory (heap used + external after a full collection) stayed flat. Exits 1, naming each failed
 * invariant, if any did not hold.
 *
 *   node --expose-gc packages/soak/dist/main.js [--smoke] [--calls N] [--seed N]
 *       [--concurrency N] [--read-timeout MS]
 *     --calls: in total, split over the four targets (default 100000; --smoke: 4000);
 *     --seed (or env SOAK_SEED): the faults' seed (default: random, printed);
 *     --concurrency: calls in flight per target (default 8);
 *     --read-timeout: the client's read timeout in ms (default 2000);
 *     --targets: a comma-separated subset of stdio-2025-11-25, stdio-2026-07-28, http-2025-11-25,
 *       http-2026-07-28 (default: all four);
 *     --fault-scale: multiplies every fault's probability (default 1; 0: a fault-free baseline).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Supervisor from "effect/Supervisor"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import type { Recorder, Settings } from "./driver.js"
import { runTarget, targets } from "./driver.js"
import type { Receipt, Resources } from "./invariants.js"
import { check } from "./invariants.js"
import * as Records from "./records.js"
import type { Memory } from "./resources.js"
import { memory as measure, settled, snapshot } from "./resources.js"

const flag = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const smoke = process.argv.includes("--smoke")
const seed = Number(flag("seed") ?? process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31))
const total = Number(flag("calls") ?? (smoke ? 4_000 : 100_000))
const concurrency = Number(flag("concurrency") ?? 8)
const readTimeoutMs = Number(flag("read-timeout") ?? 2_000)
const faultScale = Number(flag("fault-scale") ?? 1)
const only = flag("targets")?.split(",")
const chosen = only === undefined ? targets : targets.filter((t) => only.includes(t.name))
/** How long resources may take to return to their start level after the clients closed. */
const SETTLE_MS = 20_000
/** Fault-free calls per target before the baseline is taken (not counted in the report). */
const WARMUP_CALLS = 20
const WARMUP = "warmup-"

/** Counts the client's log lines by level and keeps the first few distinct messages. */
const logs = { counts: {} as Record<string, number>, samples: new Set<string>() }
const countingLogger = Logger.make(({ logLevel, message }) => {
  logs.counts[logLevel.label] = (logs.counts[logLevel.label] ?? 0) + 1
  const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
  if (logs.samples.size < 8 && LogLevel.greaterThanEqual(logLevel, LogLevel.Warning)) {
    logs.samples.add(`${logLevel.label}: ${JSON.stringify(text.slice(0, 200))}`)
  }
})

const readReceipts = (log: string): Array<Receipt> =>
  Fs.readFileSync(log, "utf8").split("\n").filter((line) => line !== "").map((line) => {
    const [token = "", fault = "", excused] = line.split("\t")
    return { token, fault, excused: excused === "1" }
  })

/** Polls until nothing more is held than before, for at most `SETTLE_MS`. */
const settle = (supervisor: Supervisor.Supervisor<Array<unknown>>, before: Resources, within = SETTLE_MS) =>
  Effect.gen(function*() {
    const deadline = Date.now() + within
    let now = yield* snapshot(supervisor)
    while (!settled(before, now) && Date.now() < deadline) {
      yield* Effect.sleep("250 millis")
      now = yield* snapshot(supervisor)
    }
    return now
  })

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`

/** Samples memory at 25 %, 62.5 % and 100 % of `expected` settled calls. */
const sampler = (expected: number) => {
  const samples: Array<Memory> = []
  // The first quarter is the warm-up: V8 grows its heap spaces to their working size there
  // (live memory after a collection stays flat while RSS rises once), which is no leak.
  const marks = [Math.ceil(expected * 0.25), Math.ceil(expected * 0.625), expected]
  return { samples, sample: (settledCount: number) => marks.includes(settledCount) }
}

const discard: Recorder = { started: () => {}, settled: () => {} }

const program = Effect.gen(function*() {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-soak-"))
  const settings: Settings = {
    seed,
    calls: Math.ceil(total / chosen.length),
    concurrency,
    readTimeoutMs,
    faultScale,
    log: Path.join(dir, "receipts.tsv")
  }
  Fs.writeFileSync(settings.log, "")
  console.log(`mcp-effect soak${smoke ? " (smoke)" : ""}: seed ${seed} (reproduce with --seed ${seed})`)
  console.log(
    `  ${new Date().toISOString()}, ${Os.cpus()[0]?.model ?? "?"}, ${mib(Os.totalmem())} memory${
      typeof (globalThis as { gc?: unknown }).gc === "function" ? "" : "; run with --expose-gc for exact memory samples"
    }`
  )
  console.log(
    `  ${settings.calls * chosen.length} calls: ${settings.calls} per target (${
      chosen.map((t) => t.name).join(", ")
    }), ${concurrency} in flight per target, read timeout ${readTimeoutMs} ms; node ${process.version}, ${Os.cpus().length} cores`
  )
  const supervisor = yield* Supervisor.track
  // A few calls per target first, so what a process creates once and keeps (libuv's and the
  // platform's lazily opened descriptors, say) is part of the baseline rather than a "leak".
  const start = yield* snapshot(supervisor)
  yield* Effect.forEach(
    chosen,
    (target) =>
      Effect.ignore(
        runTarget({ ...settings, calls: WARMUP_CALLS, faultScale: 0, tokenPrefix: WARMUP }, target, discard)
      ),
    { concurrency: "unbounded" }
  ).pipe(Effect.supervised(supervisor))
  const before = yield* settle(supervisor, start, 12_000)
  const memory = sampler(settings.calls * chosen.length)
  const calls = Records.make(Path.join(dir, "calls.tsv"), (count) => {
    if (!memory.sample(count)) return
    calls.flush()
    memory.samples.push(measure())
  })
  const started = Date.now()
  const connectFailures = yield* Effect.forEach(
    chosen,
    (target) => Effect.flip(runTarget(settings, target, calls.record)).pipe(Effect.option),
    { concurrency: "unbounded" }
  ).pipe(Effect.supervised(supervisor))
  const seconds = (Date.now() - started) / 1000
  const after = yield* settle(supervisor, before)
  const { settlements, started: startedTokens } = calls.read()
  const verdict = check({
    started: startedTokens,
    settlements,
    receipts: readReceipts(settings.log).filter((r) => !r.token.startsWith(WARMUP)),
    before,
    after,
    live: memory.samples.map((m) => m.heapUsed + m.external)
  })
  Fs.rmSync(dir, { recursive: true, force: true })
  const failures = [
    ...connectFailures.flatMap((o) => o._tag === "Some" ? [`connect failed: ${o.value}`] : []),
    ...verdict.failures
  ]
  console.log(`  ${verdict.calls} calls in ${seconds.toFixed(1)} s (${(verdict.calls / seconds).toFixed(0)} calls/s)`)
  console.log(`  succeeded ${verdict.succeeded}; failed ${JSON.stringify(verdict.failed)}`)
  for (const [target, counts] of Object.entries(verdict.byTarget)) {
    console.log(`    ${target}: ${JSON.stringify(counts)}`)
  }
  console.log(`  lost ${verdict.lost}; delivered twice ${verdict.deliveredTwice}`)
  console.log(`  faults injected ${JSON.stringify(verdict.faults)}`)
  console.log(`  re-issued as 2026-07-28 requires after a broken response: ${verdict.excusedReissues}`)
  const counts = ({ fdNames: _, ...rest }: Resources) => JSON.stringify(rest)
  console.log(`  resources at start ${counts(before)}`)
  console.log(`  resources at end   ${counts(after)}`)
  console.log(
    `  live memory (heap used + external) ${
      memory.samples.map((m) => mib(m.heapUsed + m.external)).join(" / ")
    } (25 % / 62.5 % / 100 % of the calls settled, after a full collection)`
  )
  console.log(
    `  at the same points: heap used ${
      memory.samples.map((m) => `${mib(m.heapUsed)} of ${mib(m.heapTotal)}`).join(" / ")
    }; external ${memory.samples.map((m) => mib(m.external)).join(" / ")}; RSS ${
      memory.samples.map((m) => mib(m.rss)).join(" / ")
    } (reported, not judged)`
  )
  console.log(`  client log lines ${JSON.stringify(logs.counts)}`)
  for (const sample of logs.samples) console.log(`    ${sample}`)
  if (failures.length === 0) {
    // Worded so that no CI log reader takes it for a test runner's closing line ("PASS").
    console.log("soak: every invariant held")
    return 0
  }
  for (const failure of failures) console.log(`  broken: ${failure}`)
  console.log(`soak: invariants broken (seed ${seed})`)
  return 1
})

Effect.runPromise(
  program.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, countingLogger)))
).then(
  (code) => process.exit(code),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
