/**
 * Request deadlines. One watcher per clock serves every peer on it: a timer fiber that sleeps
 * until the earliest deadline of any peer, expires what is due, sleeps again, and ends when no
 * peer has a request pending. A peer joins the watcher with its first request and leaves it when
 * a wake finds its table empty, so an idle connection holds no fiber and no timer of its own
 * (a fiber per peer slept until its last request's deadline: ~4.7 KiB per idle connection).
 * A request whose deadline is earlier than the one the watcher sleeps towards (rare: timeouts
 * are mostly equal) wakes it earlier, so a request costs no timer of its own. While a peer's
 * transport handles an auth challenge, its deadlines stand still.
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

type RunFork = (effect: Effect.Effect<void>, options: { readonly immediate: boolean }) => Fiber.RuntimeFiber<void>

/** A peer as the watcher sees it. */
interface Watched {
  /** Expires what is due at `now`; the earliest deadline left (`Infinity`: nothing to watch). */
  readonly expire: (now: number) => number
}

interface Watcher {
  readonly clock: Clock.Clock
  readonly peers: Set<Watched>
  wakeAt: number
  fiber: Fiber.RuntimeFiber<void> | undefined
}

// Keyed by the clock: peers on one clock (the live one; a test's TestClock) share one timer.
const watchers = new WeakMap<Clock.Clock, Watcher>()

const watcherFor = (clock: Clock.Clock): Watcher => {
  let watcher = watchers.get(clock)
  if (watcher === undefined) {
    watcher = { clock, peers: new Set(), wakeAt: Infinity, fiber: undefined }
    watchers.set(clock, watcher)
  }
  return watcher
}

const wake = (watcher: Watcher, now: number): number => {
  let earliest = Infinity
  for (const peer of watcher.peers) {
    const next = peer.expire(now)
    if (next === Infinity) watcher.peers.delete(peer)
    else if (next < earliest) earliest = next
  }
  return earliest
}

const loop = (watcher: Watcher): Effect.Effect<void> =>
  Effect.withFiberRuntime((fiber) => {
    if (fiber !== watcher.fiber) return Effect.void // replaced before it started
    const now = watcher.clock.unsafeCurrentTimeMillis()
    // Unknown until the wake ends: a deadline watched during it starts a fiber of its own.
    watcher.wakeAt = Infinity
    const earliest = wake(watcher, now)
    // A deadline watched during the wake (a timeout's caller asking again) started a new fiber.
    if (fiber !== watcher.fiber) return Effect.void
    watcher.wakeAt = earliest
    if (earliest === Infinity) {
      watcher.fiber = undefined
      return Effect.void
    }
    // The clock's `sleep` directly: `Effect.sleep` looks the clock up for each sleep.
    return Effect.zipRight(watcher.clock.sleep(Duration.millis(earliest - now)), loop(watcher))
  })

const interrupt = (watcher: Watcher) => {
  watcher.fiber?.unsafeInterruptAsFork(FiberId.none)
  watcher.fiber = undefined
  watcher.wakeAt = Infinity
}

/** Watches `peer` until `deadline` at the latest, on a fiber started by `runFork` if it needs one. */
const join = (watcher: Watcher, peer: Watched, deadline: number, runFork: RunFork) => {
  watcher.peers.add(peer)
  if (deadline >= watcher.wakeAt) return
  watcher.wakeAt = deadline
  watcher.fiber?.unsafeInterruptAsFork(FiberId.none)
  // Started on the scheduler, not inside the request's registration.
  watcher.fiber = runFork(Effect.suspend(() => loop(watcher)), { immediate: false })
}

const leave = (watcher: Watcher, peer: Watched) => {
  if (watcher.peers.delete(peer) && watcher.peers.size === 0) interrupt(watcher)
}

/** @internal */
export const make = (options: {
  readonly server: string
  readonly now: () => number
  readonly clock: Clock.Clock
  readonly runFork: RunFork
  readonly table: Table
  readonly isClosed: () => boolean
  readonly cancel: (id: string | number, reason: string) => void
}): Deadlines => {
  const { server, table } = options
  const watcher = watcherFor(options.clock)
  // Auth challenges the transport is handling (see onAuthorizing), and since when.
  let authorizing = 0
  let authorizingSince = 0

  const peer: Watched = {
    expire: (now) => {
      let earliest = Infinity
      if (authorizing > 0) return earliest
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
  }

  const watch = (deadline: number) => {
    if (!options.isClosed()) join(watcher, peer, deadline, options.runFork)
  }

  return {
    watch,
    // A person may be signing in: when the last challenge ends, each pending request gets the
    // time it spent back.
    onAuthorizing: (active) => {
      const now = options.now()
      if (active) {
        if (authorizing++ === 0) authorizingSince = now
        return
      }
      if (authorizing === 0 || --authorizing > 0) return
      let earliest = Infinity
      for (const entry of table.entries.values()) {
        // `deadline - timeoutMs` is when the request's time started to run.
        const paused = now - Math.max(authorizingSince, entry.deadline - entry.timeoutMs)
        entry.deadline += paused
        entry.hardDeadline += paused
        if (entry.deadline < earliest) earliest = entry.deadline
      }
      if (earliest !== Infinity) watch(earliest)
    },
    stop: () => leave(watcher, peer)
  }
}
