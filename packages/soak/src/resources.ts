/**
 * What the process holds: live fibers (through a tracking `Supervisor`), active handles by type,
 * open file descriptors and child processes (Linux `/proc`; elsewhere, handles only), and memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Supervisor from "effect/Supervisor"
import * as Fs from "node:fs"
import type { Resources } from "./invariants.js"

const openFds = (): Array<string> => {
  try {
    return Fs.readdirSync("/proc/self/fd").map((fd) => {
      try {
        return `${fd}:${Fs.readlinkSync(`/proc/self/fd/${fd}`)}`
      } catch {
        return `${fd}:?`
      }
    })
  } catch {
    return []
  }
}

const countChildren = (): number => {
  try {
    return Fs.readdirSync("/proc/self/task").reduce((n, task) => {
      const text = Fs.readFileSync(`/proc/self/task/${task}/children`, "utf8").trim()
      return n + (text === "" ? 0 : text.split(/\s+/).length)
    }, 0)
  } catch {
    return process.getActiveResourcesInfo().filter((type) => type === "ProcessWrap").length
  }
}

const countHandles = (): Record<string, number> => {
  const counts: Record<string, number> = {}
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1
  return counts
}

/**
 * A snapshot of what the process holds.
 *
 * @since 0.1.0
 */
export const snapshot = (supervisor: Supervisor.Supervisor<Array<unknown>>): Effect.Effect<Resources> =>
  Effect.map(supervisor.value, (fibers) => {
    const fds = openFds()
    return { fibers: fibers.length, handles: countHandles(), fds: fds.length, fdNames: fds, children: countChildren() }
  })

/** Whether nothing is held that was not held before. */
export const settled = (before: Resources, now: Resources): boolean =>
  now.fibers <= before.fibers && now.fds <= before.fds && now.children <= before.children &&
  Object.entries(now.handles).every(([type, n]) => n <= (before.handles[type] ?? 0))

/** What the process holds, read after a full collection when it runs with `--expose-gc`. */
export interface Memory {
  readonly rss: number
  readonly heapUsed: number
  readonly heapTotal: number
  readonly external: number
}

/**
 * Memory after a full collection when the process runs with `--expose-gc`: heap used plus
 * external is the live data a leak would grow; RSS also holds what the allocators keep.
 *
 * @since 0.1.0
 */
export const memory = (): Memory => {
  ;(globalThis as { gc?: () => void }).gc?.()
  const { external, heapTotal, heapUsed, rss } = process.memoryUsage()
  return { rss, heapUsed, heapTotal, external }
}
