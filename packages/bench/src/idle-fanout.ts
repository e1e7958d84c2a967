/**
 * Memory per idle connection with one client holding many Streamable HTTP servers (issue #37,
 * point 3), outside the round-robin bench: one warm client first (code loaded and compiled),
 * then either one client configured with `n` servers (`fanout`) or `n` clients of one server
 * each (`each`), every server a distinct URL on a few dual-era SDK v2 server processes,
 * connected and left idle; JS heap and RSS after a GC, before and after, per connection.
 *
 *   node --expose-gc packages/bench/dist/idle-fanout.js [fanout|each] [modern|legacy] [n]
 *     env BENCH_HEAP_SNAPSHOT=PREFIX writes PREFIX-before.heapsnapshot and
 *     PREFIX-after.heapsnapshot (read them with `heap-retainers.js`).
 *
 * Prints one JSON line.
 *
 * @since 0.2.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { writeHeapSnapshot } from "node:v8"
import { dualEraServer, startHttpServer, within } from "./common.js"

const clientInfo = { name: "mcp-effect-bench", version: "0.1.0" }
const SERVER_PROCESSES = 2

const settle = async (snapshot: string | undefined) => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error("run with --expose-gc")
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.BENCH_IDLE_WAIT ?? 500)))
  gc()
  gc()
  const reading = { rss: process.memoryUsage.rss(), heap: process.memoryUsage().heapUsed }
  if (snapshot !== undefined) writeHeapSnapshot(snapshot)
  return reading
}

const main = async () => {
  const mode = process.argv[2] === "each" ? "each" : "fanout"
  const era = process.argv[3] === "legacy" ? "legacy" : "modern"
  const n = Number(process.argv[4] ?? 1000)
  const prefix = process.env.BENCH_HEAP_SNAPSHOT
  const [McpClient, NodeMcpClient, StreamableHttp] = await Promise.all([
    import("@mcp-effect/client/McpClient"),
    import("@mcp-effect/node/NodeMcpClient"),
    import("@mcp-effect/client/StreamableHttp")
  ])
  const servers = await Promise.all(
    Array.from(
      { length: SERVER_PROCESSES },
      () => startHttpServer([dualEraServer, "http", "0", "--legacy", "sessions"])
    )
  )
  const configOf = (i: number) =>
    StreamableHttp.config({
      name: `s${i}`,
      url: `${servers[i % servers.length]!.url}?server=${i}`,
      protocol: era,
      // A thousand probes at once queue behind the servers' CPU.
      discoverTimeout: "60 seconds",
      readTimeout: "120 seconds"
    })
  const scopes: Array<Scope.CloseableScope> = []
  const open = async (configs: ReadonlyArray<ServerConfig<HttpClient.HttpClient>>) => {
    const scope = Effect.runSync(Scope.make())
    scopes.push(scope)
    const context = await Effect.runPromise(
      Layer.buildWithScope(NodeMcpClient.layer({ servers: configs, clientInfo }), scope)
    )
    return Context.get(context, McpClient.McpClient)
  }
  try {
    const warm = await open([configOf(n)])
    await Effect.runPromise(warm.listTools())
    const before = await settle(prefix === undefined ? undefined : `${prefix}-before.heapsnapshot`)
    const configs = Array.from({ length: n }, (_, i) => configOf(i))
    const clients = mode === "fanout"
      ? [await within(open(configs), 600_000, "connect")]
      : await configs.reduce<Promise<Array<unknown>>>(
        async (acc, config) => [...await acc, await within(open([config]), 60_000, "connect")],
        Promise.resolve([])
      )
    const after = await settle(prefix === undefined ? undefined : `${prefix}-after.heapsnapshot`)
    const versions = new Set(
      (mode === "fanout" ? (clients[0] as typeof warm).servers : clients.flatMap((c) => (c as typeof warm).servers))
        .map((s) => s.negotiated()?.protocolVersion ?? "?")
    )
    console.log(JSON.stringify({
      mode,
      era,
      versions: [...versions],
      connections: n,
      heapPerConnectionKiB: Math.round((after.heap - before.heap) / n / 102.4) / 10,
      rssPerConnectionKiB: Math.round((after.rss - before.rss) / n / 102.4) / 10,
      heapBefore: before.heap,
      heapAfter: after.heap
    }))
  } finally {
    await Promise.all(scopes.map((scope) => Effect.runPromise(Scope.close(scope, Exit.void))))
    await Promise.all(servers.map((server) => server.stop()))
  }
}

main().then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
