/**
 * The reconnect benchmark inside one worker: calls under load (a few in flight, without pause)
 * while the server is lost several times — a stdio server killed (`SIGKILL`), or every session
 * of a Streamable HTTP server forgotten (the next request gets 404) — and, for each loss, the
 * time from the loss until a call started after it succeeds.
 *
 * Ours runs with supervised reconnect (`ServerConfig.reconnect`; the facade's `reconnect`
 * option) and no code of the host's; a failed call is just failed. The official clients have
 * no reconnect: the host's code below is the minimal one a host writes for them — a call that
 * fails replaces the session it used (once, whichever call sees it first; a new client and
 * transport, the old one closed) and is retried once on the new one.
 *
 * @since 0.2.0
 */
import type { ClientName, Endpoint } from "./common.js"
import { childPids, epochMs, errorMessage, fakeStdio, median, within } from "./common.js"
import { startFleet } from "./fleet.js"
import type { Session } from "./peers.js"
import { open } from "./peers.js"
import type { Params, WorkerResult } from "./workers.js"
import { checkEcho, echoArgs } from "./workers.js"

const CALL_TIMEOUT_MS = 30_000
const RECOVERY_TIMEOUT_MS = 30_000

/** What the load sees of a host: one call, and closing. */
interface Host {
  readonly era: string
  readonly call: () => Promise<unknown>
  readonly close: () => Promise<void>
}

/**
 * The host code an official client needs: on a failed call, replace the session (single-flight,
 * re-trying the connect until it works) and retry the call once on the new session.
 */
const reconnecting = async (connect: () => Promise<Session>): Promise<Host> => {
  const first = await connect()
  let current: Promise<Session> = Promise.resolve(first)
  const reopen = async (old: Session): Promise<Session> => {
    old.close().catch(() => {})
    for (;;) {
      try {
        return await connect()
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  }
  return {
    era: first.era,
    call: async () => {
      const used = current
      const session = await used
      try {
        return await session.callTool("echo", echoArgs)
      } catch {
        if (current === used) current = reopen(session)
        return (await current).callTool("echo", echoArgs)
      }
    },
    close: async () => (await current).close()
  }
}

const connectHost = async (client: ClientName, endpoint: Endpoint): Promise<Host> => {
  if (client === "ours" || client === "ours-promise") {
    const session = await open(client, endpoint, { reconnect: true })
    return { era: session.era, call: () => session.callTool("echo", echoArgs), close: session.close }
  }
  return reconnecting(() => open(client, endpoint))
}

/** The load: `inFlight` lanes calling without pause; records when calls end, and how. */
const load = (host: Host, inFlight: number) => {
  let stopped = false
  let failures = 0
  let successes = 0
  // The earliest end of a successful call started at or after `since` (epoch ms).
  let since = Number.POSITIVE_INFINITY
  let recovered: ((at: number) => void) | undefined
  const lane = async () => {
    while (!stopped) {
      const started = epochMs()
      try {
        checkEcho(await within(host.call(), CALL_TIMEOUT_MS, "tools/call"))
        successes++
        if (started >= since && recovered !== undefined) {
          recovered(epochMs())
          recovered = undefined
        }
      } catch {
        failures++
        // A call failing at once must not spin the event loop.
        await new Promise((resolve) => setImmediate(resolve))
      }
    }
  }
  const running = Promise.all(Array.from({ length: inFlight }, lane))
  return {
    counts: () => ({ failures, successes }),
    /** Resolves with when the first call started at or after `at` succeeded. */
    recoveredAfter: (at: number) =>
      new Promise<number>((resolve) => {
        since = at
        recovered = resolve
      }),
    stop: async () => {
      stopped = true
      await running
    }
  }
}

const untilSuccesses = async (running: ReturnType<typeof load>, more: number) => {
  const target = running.counts().successes + more
  while (running.counts().successes < target) await new Promise((resolve) => setTimeout(resolve, 5))
}

/** Kills the stdio servers this worker runs (the client's children); resolves with when. */
const killStdioServers = (): number => {
  const pids = childPids()
  if (pids.length === 0) throw new Error("no stdio server to kill")
  const at = epochMs()
  for (const pid of pids) process.kill(pid, "SIGKILL")
  return at
}

/**
 * Runs the reconnect benchmark for `client`.
 *
 * @since 0.2.0
 * @category workers
 */
export const run = async (client: ClientName, params: Params): Promise<WorkerResult> => {
  const lose = params.lose ?? "stdio"
  const losses = params.losses ?? 5
  const inFlight = params.inFlight ?? 8
  const fleet = lose === "http" ? await startFleet(1) : undefined
  const endpoint: Endpoint = fleet === undefined ? fakeStdio : { kind: "http", url: fleet.urls[0]! }
  let host: Host | undefined
  try {
    host = await connectHost(client, endpoint)
    const running = load(host, inFlight)
    const recoverMs: Array<number> = []
    const failed: Array<number> = []
    try {
      for (let i = 0; i < losses; i++) {
        await untilSuccesses(running, 200)
        const failuresBefore = running.counts().failures
        const lost = fleet === undefined ? killStdioServers() : await fleet.expireSessions()
        const at = await within(running.recoveredAfter(lost), RECOVERY_TIMEOUT_MS, "recovery")
        recoverMs.push(at - lost)
        failed.push(running.counts().failures - failuresBefore)
      }
      await untilSuccesses(running, 50)
    } finally {
      await running.stop()
    }
    return {
      ok: true,
      era: host.era,
      metrics: {
        recoverMs: median(recoverMs),
        recoverMaxMs: Math.max(...recoverMs),
        failedPerLoss: median(failed)
      }
    }
  } catch (error) {
    return { ok: false, ...host === undefined ? {} : { era: host.era }, error: errorMessage(error) }
  } finally {
    await host?.close().catch(() => {})
    await fleet?.stop()
  }
}
