/**
 * The fan-out benchmark inside one worker: one host connected to many servers — Streamable HTTP
 * fakes spread over a few fleet processes (`fake-http-fleet.ts`) and fake stdio children — then
 * one aggregated `tools/list` and calls routed across the servers with a fixed number in flight.
 * Ours is one client with every server configured (the Effect API, or the Promise facade's
 * `connect` with a list of targets); the official clients are one client per server, the
 * bench's host code driving them with the same bounds.
 *
 * @since 0.2.0
 */
import type { ClientName, Endpoint } from "./common.js"
import { cpuMsSince, errorMessage, fakeStdio, forEachBounded, profiled, serverEnv } from "./common.js"
import { startFleets } from "./fleet.js"
import type { Latencies } from "./latency.js"
import { makeLatencies, tailMetrics } from "./latency.js"
import type { Session } from "./peers.js"
import { open } from "./peers.js"
import type { Params, WorkerResult } from "./workers.js"
import { checkEcho, echoArgs } from "./workers.js"

const clientInfo = { name: "mcp-effect-bench", version: "0.1.0" }

/** One host's view of every server. */
interface Host {
  readonly era: string
  /** The tools of every server, in one list. */
  readonly listTools: () => Promise<number>
  /** `n` calls of `echo`, call `i` to server `i mod servers`, `inFlight` outstanding at a time. */
  readonly calls: (n: number, inFlight: number, latencies: Latencies) => Promise<void>
  readonly close: () => Promise<void>
}

const serverName = (endpoint: Endpoint, index: number) => `${endpoint.kind}-${index}`

/** Ours, the Effect API: one client, every server lazy, connected `concurrency` at a time. */
const connectOurs = async (endpoints: ReadonlyArray<Endpoint>, concurrency: number): Promise<Host> => {
  const [McpClient, NodeMcpClient, Stdio, StreamableHttp, Context, Effect, Exit, Layer, Scope] = await Promise.all([
    import("@mcp-effect/client/McpClient"),
    import("@mcp-effect/node/NodeMcpClient"),
    import("@mcp-effect/client/Stdio"),
    import("@mcp-effect/client/StreamableHttp"),
    import("effect/Context"),
    import("effect/Effect"),
    import("effect/Exit"),
    import("effect/Layer"),
    import("effect/Scope")
  ])
  const servers = endpoints.map((endpoint, i) =>
    endpoint.kind === "stdio"
      ? Stdio.config({
        name: serverName(endpoint, i),
        command: endpoint.command,
        args: endpoint.args,
        env: endpoint.env,
        stderr: "ignore"
      })
      : StreamableHttp.config({ name: serverName(endpoint, i), url: endpoint.url })
  )
  const scope = Effect.runSync(Scope.make())
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  try {
    const layer = NodeMcpClient.layer({ servers, clientInfo, lazy: true, maxConcurrentConnects: concurrency })
    const client = Context.get(await Effect.runPromise(Layer.buildWithScope(layer, scope)), McpClient.McpClient)
    await Effect.runPromise(Effect.forEach(client.servers, (server) => server.connect, { concurrency, discard: true }))
    const names = client.servers.map((server) => server.name)
    return {
      era: client.servers[0]?.negotiated()?.protocolVersion ?? "?",
      listTools: () => Effect.runPromise(Effect.map(client.listTools(), (tools) => tools.length)),
      calls: (n, inFlight, latencies) =>
        Effect.runPromise(Effect.forEach(
          Array.from({ length: n }, (_, i) => i),
          (i) =>
            Effect.suspend(() => {
              const t0 = performance.now()
              return Effect.map(client.callTool("echo", echoArgs, { server: names[i % names.length]! }), (result) => {
                latencies.done(i, t0)
                checkEcho(result)
              })
            }),
          { concurrency: inFlight, discard: true }
        )),
      close
    }
  } catch (error) {
    await close()
    throw error
  }
}

/** Ours, the Promise facade: `connect` with every server as a named target. */
const connectOursPromise = async (endpoints: ReadonlyArray<Endpoint>, concurrency: number): Promise<Host> => {
  const { connect } = await import("@mcp-effect/node/Connect")
  const targets = endpoints.map((endpoint, i) => ({
    name: serverName(endpoint, i),
    target: endpoint.kind === "stdio" ? [endpoint.command, ...endpoint.args] : endpoint.url
  }))
  // `connect` connects every server, `concurrency` at a time.
  const client = await connect(targets, {
    clientInfo,
    env: serverEnv,
    stderr: "ignore",
    maxConcurrentConnects: concurrency
  })
  const names = targets.map((target) => target.name)
  return {
    era: client.servers[0]?.protocolVersion ?? "?",
    listTools: async () => (await client.listTools()).length,
    calls: (n, inFlight, latencies) =>
      lanes(n, inFlight, async (i) => {
        const t0 = performance.now()
        const result = await client.callTool("echo", echoArgs, { server: names[i % names.length]! })
        latencies.done(i, t0)
        checkEcho(result)
      }),
    close: () => client.close()
  }
}

/** `n` calls of `f`, `inFlight` outstanding at a time. */
const lanes = async (n: number, inFlight: number, f: (i: number) => Promise<void>): Promise<void> => {
  let next = 0
  const lane = async () => {
    while (next < n) await f(next++)
  }
  await Promise.all(Array.from({ length: Math.min(inFlight, n) }, lane))
}

/** An official client: one client per server, the host's code connecting them `concurrency` at a time. */
const connectEach = async (
  client: ClientName,
  endpoints: ReadonlyArray<Endpoint>,
  concurrency: number
): Promise<Host> => {
  const opened: Array<Session> = []
  const closeAll = () => forEachBounded(opened, 64, (session) => session.close().catch(() => {})).then(() => {})
  let byEndpoint: Array<Session>
  try {
    // In the order of the endpoints: call `i` goes to the same server as ours's.
    byEndpoint = await forEachBounded(endpoints, concurrency, async (endpoint) => {
      const session = await open(client, endpoint)
      opened.push(session)
      return session
    })
  } catch (error) {
    await closeAll()
    throw error
  }
  return {
    era: byEndpoint[0]?.era ?? "?",
    listTools: async () => {
      const lists = await Promise.all(byEndpoint.map((session) => session.listTools()))
      return lists.reduce<number>(
        (sum, list) => sum + ((list as { tools?: ReadonlyArray<unknown> }).tools?.length ?? 0),
        0
      )
    },
    calls: (n, inFlight, latencies) =>
      lanes(n, inFlight, async (i) => {
        const t0 = performance.now()
        const result = await byEndpoint[i % byEndpoint.length]!.callTool("echo", echoArgs)
        latencies.done(i, t0)
        checkEcho(result)
      }),
    close: closeAll
  }
}

const connectHost = (client: ClientName, endpoints: ReadonlyArray<Endpoint>, concurrency: number): Promise<Host> => {
  switch (client) {
    case "ours":
      return connectOurs(endpoints, concurrency)
    case "ours-promise":
      return connectOursPromise(endpoints, concurrency)
    default:
      return connectEach(client, endpoints, concurrency)
  }
}

const settle = async () => {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
  await new Promise((resolve) => setTimeout(resolve, 200))
  gc()
  gc()
  return { rss: process.memoryUsage.rss(), heap: process.memoryUsage().heapUsed }
}

/**
 * Runs the fan-out benchmark for `client`.
 *
 * @since 0.2.0
 * @category workers
 */
export const run = async (client: ClientName, params: Params): Promise<WorkerResult> => {
  const httpServers = params.httpServers ?? 1000
  const fleets = await startFleets(httpServers, params.serverProcesses ?? 4)
  const endpoints: Array<Endpoint> = [
    ...fleets.flatMap((fleet) => fleet.urls.map((url): Endpoint => ({ kind: "http", url }))),
    ...Array.from({ length: params.stdioServers ?? 100 }, () => fakeStdio)
  ]
  const concurrency = params.connectConcurrency ?? 16
  const calls = params.calls ?? 10_000
  const inFlight = params.inFlight ?? 64
  let host: Host | undefined
  try {
    const before = await settle()
    const cpu = process.cpuUsage()
    const started = performance.now()
    // Under BENCH_CPU_PROFILE, the connect phase is the one profiled.
    host = await profiled(() => connectHost(client, endpoints, concurrency))
    const connectAllMs = performance.now() - started
    const connectCpuMs = cpuMsSince(cpu)
    const connected = await settle()
    const listCpu = process.cpuUsage()
    const listStarted = performance.now()
    const tools = await host.listTools()
    const listToolsMs = performance.now() - listStarted
    const listToolsCpuMs = cpuMsSince(listCpu)
    // Warm-up: a call to every server (code compiled, each connection used once), not measured.
    await host.calls(endpoints.length, inFlight, makeLatencies(endpoints.length))
    const latencies = makeLatencies(calls)
    const callsCpu = process.cpuUsage()
    const callsStarted = performance.now()
    await host.calls(calls, inFlight, latencies)
    const callsMs = performance.now() - callsStarted
    const callsCpuMs = cpuMsSince(callsCpu)
    return {
      ok: true,
      era: host.era,
      metrics: {
        connectAllMs,
        connectCpuMs,
        listToolsMs,
        listToolsCpuMs,
        tools,
        callsPerSec: calls / (callsMs / 1000),
        cpuMsPerCall: callsCpuMs / calls,
        ...tailMetrics(latencies),
        heapPerConnection: (connected.heap - before.heap) / endpoints.length,
        rssPerConnection: (connected.rss - before.rss) / endpoints.length
      }
    }
  } catch (error) {
    return { ok: false, ...host === undefined ? {} : { era: host.era }, error: errorMessage(error) }
  } finally {
    await host?.close().catch(() => {})
    await Promise.all(fleets.map((fleet) => fleet.stop()))
  }
}
