/**
 * Starts and stops the fake HTTP fleets of the fan-out and reconnect benchmarks
 * (`fake-http-fleet.ts`, one process each) from a worker.
 *
 * @since 0.2.0
 */
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { serverEnv, within } from "./common.js"

const fleetBin = fileURLToPath(new URL("./fake-http-fleet.js", import.meta.url))

/**
 * One fleet process: its servers' URLs, a way to make them all forget their sessions, and stop.
 *
 * @since 0.2.0
 * @category models
 */
export interface Fleet {
  readonly urls: ReadonlyArray<string>
  /** Every server of the fleet forgets its sessions; resolves with when (epoch ms, the fleet's clock). */
  readonly expireSessions: () => Promise<number>
  readonly stop: () => Promise<void>
}

/**
 * Starts a process serving `count` independent fake servers, resolving once all listen.
 *
 * @since 0.2.0
 * @category constructors
 */
export const startFleet = async (count: number): Promise<Fleet> => {
  const child = spawn(process.execPath, [fleetBin, String(count)], {
    env: serverEnv,
    stdio: ["pipe", "pipe", "inherit"]
  })
  const killOnExit = () => child.kill("SIGKILL")
  process.once("exit", killOnExit)
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const lines = createInterface({ input: child.stdout! })
  const waiting = new Map<string, { resolve: (rest: string) => void; reject: (error: Error) => void }>()
  const nextLine = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      waiting.set(prefix, { resolve, reject })
    })
  lines.on("line", (line) => {
    for (const [prefix, waiter] of waiting) {
      if (!line.startsWith(prefix)) continue
      waiting.delete(prefix)
      waiter.resolve(line.slice(prefix.length))
    }
  })
  child.once("exit", (code, signal) => {
    for (const waiter of waiting.values()) waiter.reject(new Error(`fake HTTP fleet exited (${signal ?? code})`))
    waiting.clear()
  })
  const urls = JSON.parse(await within(nextLine("urls "), 60_000, "fake HTTP fleet start")) as Array<string>
  return {
    urls,
    expireSessions: async () => {
      const done = nextLine("expired ")
      child.stdin!.write("expire\n")
      return Number(await within(done, 10_000, "expire sessions"))
    },
    stop: async () => {
      process.removeListener("exit", killOnExit)
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM")
        await within(exited, 3000, "fake HTTP fleet stop").catch(() => child.kill("SIGKILL"))
      }
    }
  }
}

/**
 * `count` servers spread evenly over `processes` fleets (started together).
 *
 * @since 0.2.0
 * @category constructors
 */
export const startFleets = async (count: number, processes: number): Promise<ReadonlyArray<Fleet>> => {
  const sizes = Array.from(
    { length: processes },
    (_, i) => Math.floor(count / processes) + (i < count % processes ? 1 : 0)
  )
  const settled = await Promise.allSettled(sizes.filter((n) => n > 0).map(startFleet))
  const fleets = settled.flatMap((s) => s.status === "fulfilled" ? [s.value] : [])
  const failed = settled.find((s) => s.status === "rejected")
  if (failed !== undefined) {
    await Promise.all(fleets.map((fleet) => fleet.stop()))
    throw (failed as PromiseRejectedResult).reason
  }
  return fleets
}
