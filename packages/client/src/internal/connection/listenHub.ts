/**
 * The one `subscriptions/listen` stream (2026-07-28) every subscription of a connection shares:
 * it carries the union of their filters, is re-opened with the new union when one joins or
 * leaves (make before break: the old stream delivers until the new one is acknowledged), closes
 * when the last one leaves, and hands each notification to the subscriptions it concerns. A
 * dropped stream is re-opened with backoff; a crash loop, the server's end or a failure ends
 * every subscription it carried.
 *
 * @internal
 */
import type * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import type { RequestError } from "../../McpError.js"
import { CapabilityError, RequestTimeoutError } from "../../McpError.js"
import * as Protocol from "../../Protocol.js"
import type * as Subscription from "../../Subscription.js"
import * as Limits from "../limits.js"
import * as Policies from "../policies.js"
import type { Core, Listen } from "./core.js"

type Params = Record<string, unknown> | undefined

/** One subscription as the shared stream sees it. @internal */
export interface Member {
  readonly filter: Subscription.Filter
  /** Bounds the re-opens of the stream that carries it (the longest of its members' wins). */
  readonly ackTimeoutMs: number
  /** An acknowledgement of a stream that carries it, as it concerns it; `false`: it ended on it. */
  readonly acknowledge: (granted: Record<string, unknown>) => boolean
  /** The stream that carries it dropped and is being re-opened. */
  readonly dropped: () => void
  readonly end: () => void
  readonly fail: (error: RequestError | CapabilityError) => void
  readonly offer: (method: string, params: Params) => void
}

/** The shared stream of a connection. @internal */
export interface Hub {
  /** Carries `member` on the stream (re-opened with the new union when it needs more). */
  readonly join: (member: Member) => Effect.Effect<void>
  /** Stops carrying `member`; the last one out closes the stream (its request is cancelled). */
  readonly leave: (member: Member) => Effect.Effect<void>
  /** The listen requests open now (a replacement being acknowledged included). */
  readonly openStreams: () => number
}

/** One listen request (and its re-opens after drops) for one union filter. */
interface Runner {
  readonly filter: Record<string, unknown>
  readonly carried: Set<Member>
  readonly ackTimeoutMs: number
  granted: Record<string, unknown> | undefined
  active: boolean
  /** Stopped by the hub (replaced, or nobody left): what happens to it next concerns no member. */
  retired: boolean
  /** A replacement of it failed: it carries more than asked, and is kept so rather than retried. */
  kept: boolean
  acknowledgedAt: number
  resetBackoff: boolean
  /** Completed by the acknowledgement of the current attempt. */
  ack: Deferred.Deferred<void>
  id: number | undefined
  fiber: Fiber.RuntimeFiber<void> | undefined
}

const FLAGS = ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] as const
const LISTS = ["resourceSubscriptions", "taskIds"] as const

/** The union of the members' filters: a flag any asks for, every item any names. */
const unionOf = (members: Iterable<Member>): Record<string, unknown> => {
  const union: Record<string, unknown> = {}
  const lists: Record<string, Set<string>> = {}
  for (const { filter } of members) {
    for (const flag of FLAGS) if (filter[flag] === true) union[flag] = true
    for (const list of LISTS) {
      const items = filter[list]
      if (items !== undefined) { for (const item of items) (lists[list] ??= new Set()).add(item) }
      else continue
      lists[list] ??= new Set()
    }
  }
  for (const list of LISTS) if (lists[list] !== undefined) union[list] = [...lists[list]]
  return union
}

const sameFilter = (a: Record<string, unknown>, b: Record<string, unknown>): boolean => {
  for (const flag of FLAGS) if ((a[flag] === true) !== (b[flag] === true)) return false
  for (const list of LISTS) {
    const x = a[list] as ReadonlyArray<string> | undefined
    const y = b[list] as ReadonlyArray<string> | undefined
    if ((x === undefined) !== (y === undefined)) return false
    if (x !== undefined && y !== undefined && (x.length !== y.length || x.some((item) => !y.includes(item)))) {
      return false
    }
  }
  return true
}

/**
 * What an acknowledgement grants `member`: the fields and items it asked for, and those no other
 * member of the stream asked for (so one subscription alone sees the whole acknowledgement).
 */
const viewOf = (member: Member, granted: Record<string, unknown>, carried: ReadonlySet<Member>) => {
  const others = [...carried].filter((m) => m !== member)
  const view: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(granted)) {
    const own = (member.filter as Record<string, unknown>)[key] !== undefined
    if (!own && others.some((m) => (m.filter as Record<string, unknown>)[key] !== undefined)) continue
    if (!Array.isArray(value) || !(LISTS as ReadonlyArray<string>).includes(key)) {
      view[key] = structuredClone(value)
      continue
    }
    const mine = new Set(member.filter[key as typeof LISTS[number]] ?? [])
    view[key] = value.filter((item) =>
      mine.has(item) || !others.some((m) => (m.filter[key as typeof LISTS[number]] ?? []).includes(item))
    )
  }
  return view
}

/** The members a notification concerns: by kind, URI or task; any other kind reaches all. */
const recipients = (carried: ReadonlySet<Member>, method: string, params: Params): Iterable<Member> => {
  const flag = method === "notifications/tools/list_changed"
    ? "toolsListChanged"
    : method === "notifications/prompts/list_changed"
    ? "promptsListChanged"
    : method === "notifications/resources/list_changed"
    ? "resourcesListChanged"
    : undefined
  if (flag !== undefined) return [...carried].filter((m) => m.filter[flag] === true)
  const [list, item] = method === "notifications/resources/updated" && typeof params?.uri === "string"
    ? ["resourceSubscriptions" as const, params.uri]
    : typeof params?.taskId === "string"
    ? ["taskIds" as const, params.taskId]
    : [undefined, undefined]
  if (list === undefined) return carried
  const named = [...carried].filter((m) => (m.filter[list] ?? []).includes(item))
  // A URI nobody named exactly (a sub-resource of a watched one, say) goes to every watcher.
  return named.length > 0 ? named : [...carried].filter((m) => (m.filter[list] ?? []).length > 0)
}

const listenRefused = (server: string) =>
  new CapabilityError({
    server,
    capability: "subscriptions/listen (2026-07-28)",
    method: "subscriptions/listen"
  })

const isReopenable = (error: { readonly _tag: string }) =>
  error._tag === "ResponseStreamClosedError" || error._tag === "TransientServerError" ||
  error._tag === "ConnectionError"

/** What the shared stream uses of the core. @internal */
export type Needs = Pick<Core, "server" | "listens" | "session" | "isClosed" | "send" | "clock" | "scope">

/** What the stream's request loop tells the hub, and reads of it. */
interface Events {
  readonly clock: Clock.Clock
  readonly entryOf: (runner: Runner) => Listen
  readonly dropped: (runner: Runner) => void
  /** The runner ended (`error` undefined: gracefully). */
  readonly settle: (runner: Runner, error: RequestError | CapabilityError | undefined) => void
}

/** The request loop of one runner: its listen request, and its re-opens after drops. */
const requestLoop = (core: Needs, hub: Events) => {
  const { listens, server } = core
  const once = (runner: Runner) => {
    const entry = hub.entryOf(runner)
    return core.send({
      method: "subscriptions/listen",
      params: { notifications: runner.filter },
      options: { timeout: Duration.infinity },
      onId: (id) => {
        if (runner.id !== undefined) listens.delete(runner.id)
        runner.id = id
        if (!runner.retired) listens.set(id, entry)
      }
    })
  }

  // Fails once `ack` is still pending after the runner's ackTimeout; never succeeds.
  const acknowledgedWithin = (runner: Runner, ack: Deferred.Deferred<void>) =>
    Effect.zipRight(
      Effect.timeoutFail(Deferred.await(ack), {
        duration: Duration.millis(runner.ackTimeoutMs),
        onTimeout: () =>
          new RequestTimeoutError({ server, method: "subscriptions/listen", timeoutMs: runner.ackTimeoutMs })
      }),
      Effect.never
    )

  // A dropped stream (or a restarted stdio process) is a new listen: the server keeps no
  // subscription state. Re-opened with backoff; each re-open must be acknowledged within
  // ackTimeout; a drop right after an acknowledgement (a crash loop) ends it, and so does the
  // host closing the connection.
  const loop = (runner: Runner, bounded: boolean): Effect.Effect<void> =>
    Effect.gen(function*() {
      const backoff = yield* Schedule.driver(Policies.listenReopen)
      const end = (error: RequestError | CapabilityError | undefined) => Effect.sync(() => hub.settle(runner, error))
      const attempt = (reopen: boolean): Effect.Effect<void> =>
        Effect.suspend(() => {
          const ack = runner.ack
          return Effect.matchEffect(
            reopen ? Effect.raceFirst(once(runner), acknowledgedWithin(runner, ack)) : once(runner),
            {
              onSuccess: (result) =>
                end(
                  Protocol.resultTypeOf(result) === "complete"
                    ? undefined
                    : Protocol.invalidResult(server, "subscriptions/listen", result)
                ),
              onFailure: (error): Effect.Effect<void> => {
                hub.dropped(runner)
                const acknowledgedOnce = runner.acknowledgedAt !== -Infinity
                const ended = end(acknowledgedOnce ? undefined : error as RequestError)
                if (core.isClosed()) return ended
                // Before any acknowledgement only an HTTP stream's failure (a 5xx, a drop) is retried.
                const retry = isReopenable(error) && (acknowledgedOnce
                  ? hub.clock.unsafeCurrentTimeMillis() - runner.acknowledgedAt >= Limits.RESTART_MIN_INTERVAL_MS
                  : error._tag !== "ConnectionError")
                if (!retry) return end(error as RequestError)
                return Effect.gen(function*() {
                  if (runner.resetBackoff) {
                    runner.resetBackoff = false
                    yield* backoff.reset
                  }
                  // Sleeps the next delay; the schedule never ends.
                  yield* Effect.orDie(backoff.next(undefined))
                  const s = yield* Effect.either(core.session)
                  if (core.isClosed()) return yield* ended
                  if (s._tag === "Left") return yield* end(s.left as RequestError)
                  if (s.right.negotiated.era !== "modern") return yield* end(listenRefused(server))
                  return yield* attempt(true)
                })
              }
            }
          )
        })
      return yield* attempt(bounded)
    }).pipe(
      // Interrupted by the hub (retired) or by the connection's scope closing: the latter ends
      // what it carried, gracefully.
      Effect.onInterrupt(() => Effect.sync(() => hub.settle(runner, undefined)))
    )
  return loop
}

/** Forks a fiber with the connection's runtime (the one its router and session share). @internal */
export type RunFork = (effect: Effect.Effect<void>) => Fiber.RuntimeFiber<void>

/**
 * The hub of a connection, built on its first `join`: most connections never listen, and a built
 * hub holds some twenty closures and a set of fibers. Its runners fork with the connection's
 * runtime (not the joiner's: a subscriber may join from an uninterruptible region, or a scope of
 * its own), and the connection's scope interrupts them when it closes.
 *
 * @internal
 */
export const make = (core: Needs, runFork: RunFork): Hub => {
  let hub: Built | undefined
  return {
    join: (member) =>
      Effect.suspend(() => {
        if (hub !== undefined) return hub.join(member)
        const built = hub = build(core, runFork)
        return Effect.zipRight(Scope.addFinalizer(core.scope, built.close), built.join(member))
      }),
    leave: (member) => Effect.suspend(() => hub === undefined ? Effect.void : hub.leave(member)),
    openStreams: () => hub?.openStreams() ?? 0
  }
}

interface Built extends Hub {
  /** Interrupts the runners (and awaits them): the connection's scope closed. */
  readonly close: Effect.Effect<void>
}

const build = (core: Needs, run: RunFork): Built => {
  const { clock, listens } = core
  // The runners' fibers, interrupted by `close`: a plain set, as a `FiberSet` (one more
  // runtime and finalizer) is not needed for fibers whose failures nobody joins.
  const fibers = new Set<Fiber.RuntimeFiber<void>>()
  let closed = false
  const runFork = (effect: Effect.Effect<void>): Fiber.RuntimeFiber<void> => {
    if (closed) return Effect.runFork(Effect.interrupt)
    const fiber = run(effect)
    fibers.add(fiber)
    fiber.addObserver(() => {
      if (!closed) fibers.delete(fiber)
    })
    return fiber
  }
  const members = new Set<Member>()
  // `current` delivers; `next`, while set, is its replacement waiting for its acknowledgement.
  let current: Runner | undefined
  let next: Runner | undefined
  const retire = (runner: Runner) => {
    if (runner.retired) return
    runner.retired = true
    runner.active = false
    if (runner.id !== undefined) listens.delete(runner.id)
    runner.fiber?.unsafeInterruptAsFork(FiberId.none)
  }

  const remove = (member: Member) => {
    members.delete(member)
    current?.carried.delete(member)
    next?.carried.delete(member)
  }

  const acknowledgeOn = (runner: Runner, member: Member, granted: Record<string, unknown>) => {
    if (!member.acknowledge(viewOf(member, granted, runner.carried))) remove(member)
  }

  // Forward references: `reconcile` starts runners whose loop reports to the functions below.
  const loop = requestLoop(core, {
    clock,
    entryOf: (runner) => entryOf(runner),
    dropped: (runner) => dropped(runner),
    settle: (runner, error) => settle(runner, error)
  })

  const reconcile = (): void => {
    if (core.isClosed()) {
      // The host closed the connection: nothing re-opens, and whoever waits ends.
      for (const member of [...members]) {
        remove(member)
        member.end()
      }
    }
    if (members.size === 0) {
      if (current !== undefined) retire(current)
      if (next !== undefined) retire(next)
      current = next = undefined
      return
    }
    if (next !== undefined) {
      // A replacement whose joiners all left is no longer needed; else it settles first.
      if (current === undefined || !sameFilter(unionOf(members), current.filter)) return
      retire(next)
      next = undefined
    }
    const joining = [...members].filter((m) => current === undefined || !current.carried.has(m))
    if (current !== undefined && current.kept && joining.length === 0) return
    const desired = unionOf(members)
    if (current !== undefined && sameFilter(desired, current.filter)) {
      for (const member of joining) {
        current.carried.add(member)
        if (current.active && current.granted !== undefined) acknowledgeOn(current, member, current.granted)
      }
      return
    }
    const runner: Runner = {
      filter: desired,
      carried: new Set(members),
      ackTimeoutMs: Math.max(...[...members].map((m) => m.ackTimeoutMs)),
      granted: undefined,
      active: false,
      retired: false,
      kept: false,
      acknowledgedAt: -Infinity,
      resetBackoff: false,
      ack: Deferred.unsafeMake<void>(FiberId.none),
      id: undefined,
      fiber: undefined
    }
    // The first stream's first attempt is bounded by `listen` itself; a replacement's by its
    // members' ackTimeout, so that one the server never acknowledges leaves the old one serving.
    const replacing = current !== undefined
    if (replacing) next = runner
    else current = runner
    runner.fiber = runFork(loop(runner, replacing))
  }

  const acknowledged = (runner: Runner, granted: Record<string, unknown>) => {
    if (runner.retired) return
    runner.granted = granted
    runner.active = true
    runner.acknowledgedAt = clock.unsafeCurrentTimeMillis()
    runner.resetBackoff = true
    Deferred.unsafeDone(runner.ack, Effect.void)
    if (runner === next) {
      // The replacement is up: the old stream stops delivering and is cancelled.
      if (current !== undefined) retire(current)
      current = runner
      next = undefined
    }
    for (const member of [...runner.carried]) acknowledgeOn(runner, member, granted)
    reconcile()
  }

  const dropped = (runner: Runner) => {
    runner.active = false
    runner.ack = Deferred.unsafeMake<void>(FiberId.none)
    if (runner === current && !runner.retired) { for (const member of runner.carried) member.dropped() }
  }

  /** The runner ended (`error` undefined: gracefully): so does every member it alone carried. */
  const settle = (runner: Runner, error: RequestError | CapabilityError | undefined) => {
    if (runner.retired) return
    retire(runner)
    const outcome = (member: Member) => {
      remove(member)
      if (error === undefined) member.end()
      else member.fail(error)
    }
    if (runner === next) {
      // A replacement that failed: its joiners fail, the old stream keeps serving the others.
      next = undefined
      for (const member of runner.carried) if (current === undefined || !current.carried.has(member)) outcome(member)
      if (current !== undefined) current.kept = true
    } else if (runner === current) {
      current = undefined
      const pending = next
      next = undefined
      if (pending !== undefined) retire(pending)
      for (const member of [...runner.carried, ...(pending?.carried ?? [])]) outcome(member)
    }
    reconcile()
  }

  const entryOf = (runner: Runner): Listen => ({
    acknowledge: (granted) => acknowledged(runner, granted),
    end: () => settle(runner, undefined),
    offer: (method, params) => {
      if (runner !== current) return
      for (const member of recipients(runner.carried, method, params)) member.offer(method, params)
    }
  })

  return {
    join: (member) =>
      Effect.sync(() => {
        members.add(member)
        reconcile()
      }),
    leave: (member) =>
      Effect.suspend(() => {
        if (!members.has(member)) return Effect.void
        const before = [current, next]
        remove(member)
        reconcile()
        // The streams it stopped are awaited, so that their cancellation went out.
        const stopped = before.flatMap((r) => r !== undefined && r.retired && r.fiber !== undefined ? [r.fiber] : [])
        return Effect.forEach(stopped, Fiber.await, { discard: true })
      }),
    openStreams: () => (current === undefined ? 0 : 1) + (next === undefined ? 0 : 1),
    close: Effect.suspend(() => {
      closed = true
      return Fiber.interruptAll(fibers)
    })
  }
}
