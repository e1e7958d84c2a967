/**
 * Issue #37, point 3, in `npm run bench`: JS heap per idle connection for one client holding
 * 1,000 Streamable HTTP servers (`idle-fanout.ts`, a fresh process per figure), in both eras,
 * with the target (≤ 40 KiB). No official client holds many servers in one client: their figures
 * per connection are the `idle-http` rows (a client per server).
 *
 * @since 0.2.0
 */
import { fileURLToPath } from "node:url"
import { median, runProcess } from "./common.js"

const script = fileURLToPath(new URL("./idle-fanout.js", import.meta.url))
const TARGET_KIB = 40

const heapPerConnection = async (era: "modern" | "legacy", connections: number): Promise<number | string> => {
  const outcome = await runProcess(["--expose-gc", script, "fanout", era, String(connections)], { timeoutMs: 300_000 })
  const line = outcome.stdout.trim().split("\n").pop() ?? ""
  try {
    return (JSON.parse(line) as { heapPerConnectionKiB: number }).heapPerConnectionKiB
  } catch {
    return `failed (exit ${outcome.code}): ${outcome.stderrTail.slice(-300)}`
  }
}

/**
 * Prints the heap per idle connection of one client of `connections` servers, per era, over
 * `rounds` fresh processes, and the target's verdict.
 *
 * @since 0.2.0
 */
export const idleOneClientBench = async (quick: boolean): Promise<void> => {
  const connections = quick ? 200 : 1000
  const rounds = quick ? 1 : Number(process.env.BENCH_ROUNDS ?? 3)
  console.log(`\n=== idle: one client holding ${connections} Streamable HTTP servers (heap per connection, KiB)`)
  console.log(`    ${rounds} fresh process(es) per era; 2 dual-era SDK v2 server processes; heap after GC, 500 ms idle`)
  for (const [era, label] of [["modern", "2026-07-28"], ["legacy", "2025-11-25 (session + GET stream)"]] as const) {
    const figures: Array<number> = []
    for (let round = 0; round < rounds; round++) {
      const figure = await heapPerConnection(era, connections)
      if (typeof figure === "string") console.log(`  ${label}: round ${round + 1} ${figure}`)
      else figures.push(figure)
    }
    if (figures.length === 0) continue
    const value = median(figures)
    const verdict = era === "modern"
      ? (value <= TARGET_KIB ? "met" : "NOT MET")
      : "(information: a GET stream per session)"
    console.log(
      `  ${label.padEnd(36)} ${figures.map((f) => f.toFixed(1)).join(" / ")}  median ${value.toFixed(1)}` +
        `  target ≤ ${TARGET_KIB}: ${verdict}`
    )
  }
}
