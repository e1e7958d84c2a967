/**
 * The soak's verdict, a pure function of what the driver and the servers recorded: every call
 * settles exactly once with its own token, no `tools/call` is received twice (except where the
 * 2026-07-28 revision requires a re-issue), nothing leaks, live memory stays flat.
 *
 * @since 0.1.0
 */

/**
 * How one call settled: with a result (the token it carried, if any), with a typed error, or
 * not at all before the driver's watchdog (lost).
 *
 * @since 0.1.0
 */
export type Outcome =
  | { readonly _tag: "Ok"; readonly token: string | undefined }
  | { readonly _tag: "Failed"; readonly error: string }
  | { readonly _tag: "Lost" }

/** @since 0.1.0 */
export interface Settlement {
  readonly token: string
  readonly outcome: Outcome
}

/**
 * One `tools/call` a server received: its token, the fault it drew, and whether that fault
 * allows the client to send the same call again (see `faults.excusesReissue`).
 *
 * @since 0.1.0
 */
export interface Receipt {
  readonly token: string
  readonly fault: string
  readonly excused: boolean
}

/**
 * What the process holds at one moment.
 *
 * @since 0.1.0
 */
export interface Resources {
  readonly fibers: number
  /** `process.getActiveResourcesInfo()` counted by type. */
  readonly handles: Readonly<Record<string, number>>
  readonly fds: number
  /** `fd:target` of each open descriptor, where the platform tells. */
  readonly fdNames?: ReadonlyArray<string> | undefined
  readonly children: number
}

/** @since 0.1.0 */
export interface Observations {
  readonly started: ReadonlyArray<string>
  readonly settlements: ReadonlyArray<Settlement>
  readonly receipts: ReadonlyArray<Receipt>
  readonly before: Resources
  readonly after: Resources
  /**
   * Live memory in bytes (heap used plus external, after a full collection) at the start, middle
   * and end of the run.
   */
  readonly live: ReadonlyArray<number>
}

/** @since 0.1.0 */
export interface Verdict {
  readonly calls: number
  readonly succeeded: number
  /** Failed calls by error tag. */
  readonly failed: Readonly<Record<string, number>>
  readonly lost: number
  readonly deliveredTwice: number
  /** Re-issues the 2026-07-28 revision requires after a broken response. */
  readonly excusedReissues: number
  /** Settled calls by target (the token's part before `#`) and outcome (`ok` or the error tag). */
  readonly byTarget: Readonly<Record<string, Readonly<Record<string, number>>>>
  /** Faults the servers drew, by kind. */
  readonly faults: Readonly<Record<string, number>>
  /** One line per failed invariant; empty when the soak passed. */
  readonly failures: ReadonlyArray<string>
}

/**
 * How much live memory may grow from the first sample to the last. RSS is reported, not judged:
 * it also counts what V8's fragmented old space and glibc's per-thread arenas keep after the
 * objects are gone (docs/reliability.md), so it grows without a leak.
 */
export const LIVE_TOLERANCE = 0.2

const bump = (counts: Record<string, number>, key: string, by = 1) => {
  counts[key] = (counts[key] ?? 0) + by
}

const sample = (tokens: ReadonlyArray<string>) =>
  tokens.length === 0 ? "" : `: ${tokens.slice(0, 5).join(", ")}${tokens.length > 5 ? ", …" : ""}`

const groupBy = <A extends { readonly token: string }, B>(items: ReadonlyArray<A>, f: (a: A) => B) => {
  const groups = new Map<string, Array<B>>()
  for (const item of items) {
    const group = groups.get(item.token)
    if (group === undefined) groups.set(item.token, [f(item)])
    else group.push(f(item))
  }
  return groups
}

/** Every call settles once, with its own token. */
const checkSettlements = (o: Observations, failures: Array<string>) => {
  const byToken = groupBy(o.settlements, (s) => s.outcome)
  const started = new Set(o.started)
  const lost = o.started.filter((t) => (byToken.get(t) ?? []).every((outcome) => outcome._tag === "Lost"))
  const twice = [...byToken].filter(([, outcomes]) => outcomes.length > 1).map(([t]) => t)
  const unknown = [...byToken.keys()].filter((t) => !started.has(t))
  const foreign = o.settlements.filter((s) => s.outcome._tag === "Ok" && s.outcome.token !== s.token)
  const delivered = new Map<string, number>()
  for (const s of o.settlements) {
    if (s.outcome._tag === "Ok" && s.outcome.token !== undefined) {
      delivered.set(s.outcome.token, (delivered.get(s.outcome.token) ?? 0) + 1)
    }
  }
  const reused = [...delivered].filter(([, n]) => n > 1).map(([t]) => t)
  if (lost.length > 0) failures.push(`${lost.length} call(s) never settled (lost)${sample(lost)}`)
  if (twice.length > 0) failures.push(`${twice.length} call(s) settled more than once${sample(twice)}`)
  if (unknown.length > 0) failures.push(`${unknown.length} settlement(s) of calls never started${sample(unknown)}`)
  if (foreign.length > 0) {
    failures.push(
      `${foreign.length} call(s) got another call's result${
        sample(foreign.map((s) => `${s.token} got ${s.outcome._tag === "Ok" ? s.outcome.token : ""}`))
      }`
    )
  }
  if (reused.length > 0) failures.push(`${reused.length} result(s) delivered to more than one call${sample(reused)}`)
  return { lost: lost.length, deliveredTwice: twice.length + reused.length }
}

/** No `tools/call` received twice, unless every earlier receipt excused a re-issue. */
const checkReceipts = (o: Observations, failures: Array<string>) => {
  const byToken = groupBy(o.receipts, (r) => r)
  const resent: Array<string> = []
  let excused = 0
  for (const [token, list] of byToken) {
    const earlier = list.slice(0, -1)
    if (earlier.every((r) => r.excused)) excused += earlier.length
    else resent.push(`${token} ×${list.length} (${list.map((r) => r.fault).join(", ")})`)
  }
  const started = new Set(o.started)
  const strangers = [...byToken.keys()].filter((t) => !started.has(t))
  const answered = new Set(o.settlements.filter((s) => s.outcome._tag === "Ok").map((s) => s.token))
  const unreceived = [...answered].filter((t) => !byToken.has(t))
  if (resent.length > 0) failures.push(`${resent.length} tools/call(s) re-sent${sample(resent)}`)
  if (strangers.length > 0) {
    failures.push(`${strangers.length} tools/call(s) received but never made${sample(strangers)}`)
  }
  if (unreceived.length > 0) {
    failures.push(`${unreceived.length} call(s) succeeded though no server received them${sample(unreceived)}`)
  }
  return excused
}

/** Nothing held at the end that was not held at the start. */
const checkResources = (before: Resources, after: Resources, failures: Array<string>) => {
  if (after.fibers > before.fibers) {
    failures.push(`fibers leaked: ${before.fibers} at the start, ${after.fibers} at the end`)
  }
  if (after.fds > before.fds) {
    const known = new Set(before.fdNames ?? [])
    const added = (after.fdNames ?? []).filter((name) => !known.has(name))
    failures.push(
      `file descriptors leaked: ${before.fds} at the start, ${after.fds} at the end${
        added.length > 0 ? ` (new: ${added.join(", ")})` : ""
      }`
    )
  }
  if (after.children > before.children) {
    failures.push(`child processes leaked: ${before.children} at the start, ${after.children} at the end`)
  }
  for (const [type, n] of Object.entries(after.handles)) {
    const was = before.handles[type] ?? 0
    if (n > was) failures.push(`${type} handles leaked: ${was} at the start, ${n} at the end`)
  }
}

// A leak grows with the calls made, so the last sample is judged against the first; the middle
// one is reported, since the calls and connections in flight when it is taken make it noisy.
const checkLive = (live: ReadonlyArray<number>, failures: Array<string>) => {
  const first = live[0]
  const last = live[live.length - 1]
  if (first === undefined || last === undefined) return
  if (last > first * (1 + LIVE_TOLERANCE)) {
    const mib = live.map((bytes) => (bytes / 2 ** 20).toFixed(1)).join(" / ")
    failures.push(`live memory grew more than ${LIVE_TOLERANCE * 100} %: ${mib} MiB (start / middle / end)`)
  }
}

/**
 * Checks every invariant.
 *
 * @since 0.1.0
 */
export const check = (o: Observations): Verdict => {
  const failures: Array<string> = []
  const failed: Record<string, number> = {}
  const byTarget: Record<string, Record<string, number>> = {}
  let succeeded = 0
  for (const s of o.settlements) {
    const target = s.token.split("#")[0]!
    const outcome = s.outcome._tag === "Ok" ? "ok" : s.outcome._tag === "Failed" ? s.outcome.error : "lost"
    bump(byTarget[target] ??= {}, outcome)
    if (s.outcome._tag === "Ok") succeeded++
    else if (s.outcome._tag === "Failed") bump(failed, s.outcome.error)
  }
  const faults: Record<string, number> = {}
  for (const r of o.receipts) bump(faults, r.fault)
  const { deliveredTwice, lost } = checkSettlements(o, failures)
  const excusedReissues = checkReceipts(o, failures)
  checkResources(o.before, o.after, failures)
  checkLive(o.live, failures)
  if (o.started.length === 0) failures.push("no calls were made")
  return {
    calls: o.started.length,
    succeeded,
    failed,
    byTarget,
    lost,
    deliveredTwice,
    excusedReissues,
    faults,
    failures
  }
}
