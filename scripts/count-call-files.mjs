// Counts the runtime files one `callTool` crosses: the Effect API (`McpClient` from
// `NodeMcpClient.layer`) over Streamable HTTP against an in-process fake 2026-07-28 server.
//
//   npm run build && [MODE=json] node scripts/count-call-files.mjs [--calls N] [--warmup N] [--list | --functions] [--json]
//
// MODE=json has the fake server answer POSTs with JSON bodies; by default (its default) with SSE.
//
// How it counts (docs/architecture.md, "One call, followed as data"): V8's precise coverage
// (`Profiler.startPreciseCoverage`, call counts) is on from the start; after a warm-up of
// sequential calls the counters are reset, the measured calls run, and a file counts when any of
// its functions ran during them. Only `packages/client/dist` and `packages/node/dist` count (the
// per-module build, one file per source file): the library is loaded from `dist/` through a
// resolve hook, since Node would otherwise load the bundle (`node` export condition). The fake
// server imports the client through that bundle, so what it runs never counts.
import { Session } from "node:inspector/promises"
import { register } from "node:module"
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const flag = (name, fallback) => {
  const index = process.argv.indexOf(name)
  return index === -1 ? fallback : Number(process.argv[index + 1])
}
const calls = flag("--calls", 200)
const warmup = flag("--warmup", 500)

// Inside the library's dist, `@mcp-effect/client|node/X` resolves to dist/X.js (not the bundle).
const hook = `
const root = ${JSON.stringify(pathToFileURL(root).href)}
const specifier = /^@mcp-effect\\/(client|node)(?:\\/(.*))?$/
export const resolve = (spec, context, next) => {
  const match = specifier.exec(spec)
  const parent = context.parentURL ?? ""
  const fromLibrary = parent.startsWith(root + "/packages/client/dist/") ||
    parent.startsWith(root + "/packages/node/dist/") || parent.startsWith(root + "/scripts/")
  if (match === null || !fromLibrary) return next(spec, context)
  return next(root + "/packages/" + match[1] + "/dist/" + (match[2] ?? "index") + ".js", context)
}
`
register(`data:text/javascript,${encodeURIComponent(hook)}`, import.meta.url)

const session = new Session()
session.connect()
await session.post("Profiler.enable")
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false })

const dist = (pkg, module) => pathToFileURL(Path.join(root, "packages", pkg, "dist", `${module}.js`)).href
const [Effect, Context, Layer, Scope, Exit, McpClient, StreamableHttp, NodeMcpClient, FakeHttpServer, Scenarios] =
  await Promise.all([
    import("effect/Effect"),
    import("effect/Context"),
    import("effect/Layer"),
    import("effect/Scope"),
    import("effect/Exit"),
    import(dist("client", "McpClient")),
    import(dist("client", "StreamableHttp")),
    import(dist("node", "NodeMcpClient")),
    import("@mcp-effect/testing/FakeHttpServer"),
    import("@mcp-effect/testing/Scenarios")
  ])

// Each library file any function of which ran, with the names of those functions.
const libraryFiles = (coverage) => {
  const files = new Map()
  for (const script of coverage.result) {
    const match = /\/packages\/(client|node)\/dist\/(.+)\.js$/.exec(script.url)
    if (match === null) continue
    const ran = script.functions.filter((f) => f.ranges[0].count > 0).map((f) => f.functionName || "(anonymous)")
    if (ran.length > 0) files.set(`${match[1]}/src/${match[2]}.ts`, ran)
  }
  return new Map([...files].sort(([a], [b]) => a < b ? -1 : 1))
}

const scope = Effect.runSync(Scope.make())
let files
try {
  const server = await Effect.runPromise(
    Scope.extend(
      FakeHttpServer.make({
        definition: { ...Scenarios.demo, era: "modern" },
        responseMode: process.env.MODE ?? "sse"
      }),
      scope
    )
  )
  const context = await Effect.runPromise(
    Layer.buildWithScope(
      NodeMcpClient.layer({
        servers: [StreamableHttp.config({ name: "fake", url: server.mcpUrl })],
        clientInfo: { name: "count-call-files", version: "0.1.0" }
      }),
      scope
    )
  )
  const client = Context.get(context, McpClient.McpClient)
  const version = client.servers[0]?.negotiated()?.protocolVersion
  if (version !== "2026-07-28") throw new Error(`expected 2026-07-28, negotiated ${version}`)
  const call = client.callTool("echo", { message: "hi" })
  const loop = (n) => Effect.runPromise(Effect.forEach(Array.from({ length: n }), () => call, { discard: true }))
  await loop(warmup)
  await session.post("Profiler.takePreciseCoverage")
  await loop(calls)
  files = libraryFiles(await session.post("Profiler.takePreciseCoverage"))
} finally {
  await session.post("Profiler.stopPreciseCoverage")
  session.disconnect()
  await Effect.runPromise(Scope.close(scope, Exit.void))
}

if (process.argv.includes("--json")) console.log(JSON.stringify({ files: files.size, list: [...files.keys()] }))
else {
  console.log(`callTool (Effect API, Streamable HTTP, 2026-07-28): ${files.size} runtime files`)
  const functions = process.argv.includes("--functions")
  if (functions || process.argv.includes("--list")) {
    for (const [file, ran] of files) console.log(`  ${file}${functions ? `: ${[...new Set(ran)].join(", ")}` : ""}`)
  }
}
