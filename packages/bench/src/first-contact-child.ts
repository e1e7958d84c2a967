/**
 * One fresh process of the first-contact benchmark (started by `first-contact.ts`):
 *
 *   node packages/bench/dist/first-contact-child.js import|one-shot|rss <client> [calls]
 *   node packages/bench/dist/first-contact-child.js http-connect <client> <url>
 *
 * - `import`: CPU and wall around the dynamic import of what a stdio user's program imports,
 *   in a process that does nothing else;
 * - `one-shot`: imports, connects to the fake server over stdio, calls `echo`, closes, and then
 *   must exit by itself; it reports from its `exit` event (CPU of the whole process, and how
 *   long it lived on after `close`), with its connect's wall and CPU (the first stdio connection);
 * - `rss`: RSS right after connect and after `calls` sequential calls;
 * - `http-connect`: imports what a program that talks to a Streamable HTTP server imports, then
 *   times its first connection to the server at `url` (wall and CPU).
 *
 * Prints one JSON line, a `WorkerResult`. Nothing of the bench is loaded before the measured
 * import: its own modules are imported after it.
 *
 * @since 0.2.0
 */
import { writeSync } from "node:fs"
import type { ClientName } from "./common.js"
import type { Session } from "./peers.js"
import type { WorkerResult } from "./workers.js"

interface UserImports {
  /** The package a user imports. */
  readonly main: ReadonlyArray<string>
  /** What a stdio user imports besides (v2 keeps its stdio transport in a subpath). */
  readonly transport: ReadonlyArray<string>
}

const v2Imports: UserImports = {
  main: ["@modelcontextprotocol/client"],
  transport: ["@modelcontextprotocol/client/stdio"]
}

/** Per client, what a program that talks to a stdio server imports; the raw loop imports nothing to speak of. */
const userImports: Partial<Record<ClientName, UserImports>> = {
  "ours-promise": { main: ["@mcp-effect/node"], transport: [] },
  "ours-standalone": { main: ["@mcp-effect/node/standalone"], transport: [] },
  v1: {
    main: ["@modelcontextprotocol/sdk/client/index.js", "@modelcontextprotocol/sdk/client/stdio.js"],
    transport: []
  },
  "v2-legacy": v2Imports,
  "v2-auto": v2Imports
}

/** What a program that talks to a Streamable HTTP server imports: v1 keeps that transport apart. */
const httpImports = (client: ClientName): ReadonlyArray<string> =>
  client === "v1"
    ? ["@modelcontextprotocol/sdk/client/index.js", "@modelcontextprotocol/sdk/client/streamableHttp.js"]
    : userImports[client]?.main ?? []

/** Past this, a process that has closed its client counts as hung. */
const EXIT_LIMIT_MS = 30_000

const report = (result: WorkerResult): void => {
  writeSync(1, JSON.stringify(result) + "\n")
}

const importAll = async (specifiers: ReadonlyArray<string>): Promise<void> => {
  for (const specifier of specifiers) await import(specifier)
}

/** The bench's own helpers, loaded after the client. */
const helpers = async () => {
  const [common, peers, workers] = await Promise.all([
    import("./common.js"),
    import("./peers.js"),
    import("./workers.js")
  ])
  return { ...common, ...peers, ...workers }
}

const importOnly = async (client: ClientName): Promise<void> => {
  const imports = userImports[client]
  const start = process.cpuUsage()
  const began = performance.now()
  await importAll(imports?.main ?? [])
  const wallMs = performance.now() - began
  const main = process.cpuUsage(start)
  await importAll(imports?.transport ?? [])
  const withTransport = process.cpuUsage(start)
  const { cpuMs } = await helpers()
  const metrics = imports === undefined
    ? {}
    : { importWallMs: wallMs, importCpuMs: cpuMs(main), stdioImportCpuMs: cpuMs(withTransport) }
  report({ ok: true, era: "-", metrics })
  process.exit(0)
}

/** Imports what a user would, then connects to the fake server over stdio. */
const connect = async (client: ClientName) => {
  const imports = userImports[client]
  await importAll([...imports?.main ?? [], ...imports?.transport ?? []])
  const bench = await helpers()
  const cpu = process.cpuUsage()
  const began = performance.now()
  const session = await bench.open(client, bench.fakeStdio)
  return { bench, session, connectMs: performance.now() - began, connectCpuMs: bench.cpuMs(process.cpuUsage(cpu)) }
}

/** Reports from the `exit` event, unless the process is still alive `EXIT_LIMIT_MS` after `close`. */
const reportAtExit = (session: Session, metrics: Record<string, number>, cpuMs: (usage: NodeJS.CpuUsage) => number) => {
  const closedAt = performance.now()
  let hung = false
  process.once("exit", () => {
    if (hung) return
    const exitMs = performance.now() - closedAt
    report({ ok: true, era: session.era, metrics: { ...metrics, exitMs, oneShotCpuMs: cpuMs(process.cpuUsage()) } })
  })
  setTimeout(() => {
    hung = true
    const alive = process.getActiveResourcesInfo().join(", ")
    report({ ok: false, era: session.era, error: `still running ${EXIT_LIMIT_MS / 1000} s after close (${alive})` })
    process.exit(1)
  }, EXIT_LIMIT_MS).unref()
}

const oneShot = async (client: ClientName): Promise<void> => {
  const { bench, connectCpuMs, connectMs, session } = await connect(client)
  bench.checkEcho(await session.callTool("echo", bench.echoArgs))
  await session.close()
  reportAtExit(session, { connectMs, connectCpuMs }, bench.cpuMs)
}

const rss = async (client: ClientName, calls: number): Promise<void> => {
  const { bench, session } = await connect(client)
  const rssConnect = process.memoryUsage.rss()
  bench.checkEcho(await session.callTool("echo", bench.echoArgs))
  await session.sequential(calls - 1, "echo", bench.echoArgs)
  const rssCalls = process.memoryUsage.rss()
  await session.close()
  report({ ok: true, era: session.era, metrics: { rssConnect, rssCalls } })
  process.exit(0)
}

/** The first Streamable HTTP connection of a process that has imported its client. */
const httpConnect = async (client: ClientName, url: string): Promise<void> => {
  await importAll(httpImports(client))
  const bench = await helpers()
  const cpu = process.cpuUsage()
  const began = performance.now()
  const session = await bench.open(client, { kind: "http", url })
  const httpConnectMs = performance.now() - began
  const httpConnectCpuMs = bench.cpuMs(process.cpuUsage(cpu))
  await session.close()
  report({ ok: true, era: session.era, metrics: { httpConnectMs, httpConnectCpuMs } })
  process.exit(0)
}

const main = (mode: string | undefined, client: ClientName, arg: string | undefined): Promise<void> => {
  switch (mode) {
    case "import":
      return importOnly(client)
    case "one-shot":
      return oneShot(client)
    case "rss":
      return rss(client, Number(arg ?? 1000))
    case "http-connect":
      return httpConnect(client, arg ?? "")
    default:
      return Promise.reject(
        new Error(`unknown mode ${JSON.stringify(mode)}; expected import, one-shot, rss or http-connect`)
      )
  }
}

const [mode, client, arg] = process.argv.slice(2)
main(mode, client as ClientName, arg).catch(async (error: unknown) => {
  const { errorMessage } = await import("./common.js")
  report({ ok: false, error: errorMessage(error) })
  process.exit(1)
})
