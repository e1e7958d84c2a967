/**
 * The peer's deadline watcher. A timer fiber watches every deadline while requests are pending:
 * it sleeps until the earliest, expires what is due, sleeps again, and ends when nothing is left
 * to watch (an idle connection holds no fiber and no timer). A request whose deadline is earlier
 * than the one it sleeps towards (rare: timeouts are mostly equal) replaces it, so a request
 * costs no timer of its own. While the transport handles an auth challenge, deadlines stand still.
 *
 * @internal
 */
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import { RequestTimeoutError } from "../../McpError.js"
import type { Table } from "./pending.js"

/** @internal */
export interface Deadlines {
  /** A new deadline: wakes the watcher earlier if it sleeps past it. */
  readonly watch: (deadline: number) => void
  /** An auth challenge began (`true`) or ended (see `TransportSink.onAuthorizing`). */
  readonly onAuthorizing: (active: boolean) => void
  readonly stop: () => void
}

/** @internal */
export const make = (options: {
  readonly server: string
  readonly now: () => number
  /** The peer's clock (its `sleep` directly: `Effect.sleep` looks the clock up for each sleep). */
  readonly clock: Clock.Clock
  readonly runFork: (effect: Effect.Effect<void>, options: { readonly immediate: boolean }) => Fiber.RuntimeFiber<void>
  readonly table: Table
  readonly isClosed: () => boolean
  readonly cancel: (id: string | number, reason: string) => void
}): Deadlines => {
  const { server } = options
  let wakeAt = Infinity
  let deadlineFiber: Fiber.RuntimeFiber<void> | undefined
  // Auth challenges the transport is handling (see onAuthorizing), and since when.
  let authorizing = 0
  let authorizingSince = 0

  const rearm = () => {
    deadlineFiber?.unsafeInterruptAsFork(FiberId.none)
    // Started on the scheduler, not inside the request's registration.
    deadlineFiber = options.isClosed() ? undefined : options.runFork(deadlineLoop, { immediate: false })
  }

  const expire = (now: number) => {
    let earliest = Infinity
    if (authorizing > 0) return earliest
    const { table } = options
    for (const [id, entry] of table.entries) {
      if (entry.deadline <= now) {
        const timeoutMs = entry.deadline >= entry.hardDeadline ? entry.maxTotalTimeoutMs! : entry.timeoutMs
        table.settle(id, entry, Exit.fail(new RequestTimeoutError({ server, method: entry.method, timeoutMs })))
        if (entry.cancellable) options.cancel(id, `timed out after ${timeoutMs} ms`)
      } else if (entry.deadline < earliest) {
        earliest = entry.deadline
      }
    }
    return earliest
  }

  const deadlineLoop: Effect.Effect<void> = Effect.withFiberRuntime((fiber) => {
    if (fiber !== deadlineFiber) return Effect.void // replaced before it started
    const now = options.now()
    const earliest = expire(now)
    wakeAt = earliest
    if (earliest === Infinity) {
      deadlineFiber = undefined
      return Effect.void
    }
    return Effect.zipRight(options.clock.sleep(Duration.millis(earliest - now)), deadlineLoop)
  })

  return {
    watch: (deadline) => {
      if (deadline < wakeAt) {
        wakeAt = deadline
        rearm()
      }
    },
    // A person may be signing in: when the last challenge ends, each pending request gets the
    // time it spent back.
    onAuthorizing: (active) => {
      const now = options.now()
      if (active) {
        if (authorizing++ === 0) authorizingSince = now
        return
      }
      if (authorizing === 0 || --authorizing > 0) return
      const { entries } = options.table
      for (const entry of entries.values()) {
        // `deadline - timeoutMs` is when the request's time started to run.
        const paused = now - Math.max(authorizingSince, entry.deadline - entry.timeoutMs)
        entry.deadline += paused
        entry.hardDeadline += paused
      }
      if (entries.size > 0) rearm()
    },
    stop: () => {
      deadlineFiber?.unsafeInterruptAsFork(FiberId.none)
      deadlineFiber = undefined
    }
  }
}
