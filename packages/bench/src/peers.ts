/**
 * One connected session of any client the bench measures, behind one small interface. Ours runs
 * its loops inside one Effect (`sequential`, `concurrent`); the Promise clients run plain
 * `await` loops. Each client's modules are imported on first use, so a worker loads (and its
 * RSS holds) only the client it measures.
 *
 * @since 0.1.0
 */
import type * as McpClient from "@mcp-effect/client/McpClient"
import type { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js"
import type * as EffectType from "effect/Effect"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import type { ClientName, Endpoint } from "./common.js"
import type { Latencies } from "./latency.js"

/** @since 0.1.0 */
export interface Session {
  /** The protocol version the session negotiated. */
  readonly era: string
  readonly callTool: (name: string, args: Record<string, unknown>) => Promise<unknown>
  readonly listTools: () => Promise<unknown>
  /** `n` calls one after another (each one's latency into `latencies`, when given). */
  readonly sequential: (
    n: number,
    name: string,
    args: Record<string, unknown>,
    latencies?: Latencies
  ) => Promise<void>
  /** `n` calls with `inFlight` of them outstanding at any time. */
  readonly concurrent: (
    n: number,
    inFlight: number,
    name: string,
    args: Record<string, unknown>,
    latencies?: Latencies
  ) => Promise<void>
  readonly close: () => Promise<void>
}

const clientInfo = { name: "mcp-effect-bench", version: "0.1.0" }

const promiseLoops = (
  callTool: Session["callTool"]
): Pick<Session, "sequential" | "concurrent"> => ({
  sequential: async (n, name, args, latencies) => {
    if (latencies === undefined) {
      for (let i = 0; i < n; i++) await callTool(name, args)
      return
    }
    for (let i = 0; i < n; i++) {
      const t0 = performance.now()
      await callTool(name, args)
      latencies.done(i, t0)
    }
  },
  concurrent: async (n, inFlight, name, args, latencies) => {
    let started = 0
    const lane = async () => {
      while (started < n) {
        const i = started++
        const t0 = performance.now()
        await callTool(name, args)
        latencies?.done(i, t0)
      }
    }
    await Promise.all(Array.from({ length: Math.min(inFlight, n) }, lane))
  }
})

/**
 * What a session of ours may add: `reconnect`, supervised reconnect of its server (the reconnect
 * benchmark; the official clients have none, the bench's host code reconnects them).
 *
 * @since 0.2.0
 * @category models
 */
export interface OpenOptions {
  readonly reconnect?: boolean | undefined
}

/** The supervision the reconnect benchmark gives ours: re-open at once, then back off from 100 ms. */
const reconnectPolicy = { maxAttempts: 20 }

/**
 * Imports once, on first use: a warm connect then times the client, not nine look-ups in the
 * module map (~0.12 ms per open, where the other clients' opens import one module).
 */
const once = <A>(load: () => Promise<A>): () => Promise<A> => {
  let loaded: Promise<A> | undefined
  return () => loaded ??= load()
}

const oursModules = once(() =>
  Promise.all([
    import("@mcp-effect/client/McpClient"),
    import("@mcp-effect/node/NodeMcpClient"),
    import("effect/Context"),
    import("effect/Effect"),
    import("effect/Exit"),
    import("effect/Layer"),
    import("effect/Scope")
  ])
)

const openOurs = async (endpoint: Endpoint, options: OpenOptions = {}): Promise<Session> => {
  const [[McpClient, NodeMcpClient, Context, Effect, Exit, Layer, Scope], server] = await Promise.all([
    oursModules(),
    ourServer(endpoint, options)
  ])
  const scope = Effect.runSync(Scope.make())
  try {
    const context = await Effect.runPromise(
      Layer.buildWithScope(NodeMcpClient.layer({ servers: [server], clientInfo }), scope)
    )
    const client = Context.get(context, McpClient.McpClient)
    // The `i`-th call of a loop, its latency recorded when asked (else the call as it is).
    const timed = <A, E>(call: EffectType.Effect<A, E>, latencies: Latencies | undefined) =>
      latencies === undefined ? () => call : (i: number) =>
        Effect.suspend(() => {
          const t0 = performance.now()
          return Effect.tap(call, () => latencies.done(i, t0))
        })
    return {
      era: client.servers[0]?.negotiated()?.protocolVersion ?? "?",
      callTool: (name, args) => Effect.runPromise(client.callTool(name, args)),
      listTools: () => Effect.runPromise(client.listTools()),
      sequential: (n, name, args, latencies) => {
        const call = timed(client.callTool(name, args), latencies)
        return Effect.runPromise(Effect.forEach(Array.from({ length: n }), (_, i) => call(i), { discard: true }))
      },
      concurrent: (n, inFlight, name, args, latencies) => {
        const call = timed(client.callTool(name, args), latencies)
        return Effect.runPromise(
          Effect.forEach(Array.from({ length: n }), (_, i) => call(i), { discard: true, concurrency: inFlight })
        )
      },
      close: () => Effect.runPromise(Scope.close(scope, Exit.void))
    }
  } catch (error) {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw error
  }
}

/** Our configuration of the bench's server at `endpoint` (stderr discarded, as every other client here does). */
const serverModules = once(() =>
  Promise.all([import("@mcp-effect/client/Stdio"), import("@mcp-effect/client/StreamableHttp")])
)

const ourServer = async (endpoint: Endpoint, options: OpenOptions = {}) => {
  const [Stdio, StreamableHttp] = await serverModules()
  const config = endpoint.kind === "stdio"
    ? Stdio.config({
      name: "bench",
      command: endpoint.command,
      args: endpoint.args,
      env: endpoint.env,
      stderr: "ignore"
    })
    : StreamableHttp.config({ name: "bench", url: endpoint.url })
  return options.reconnect === true ? { ...config, reconnect: reconnectPolicy } : config
}

/**
 * A session over the client built once into a `ManagedRuntime`, as an Effect application holds
 * it; `close` (or a failure to open) disposes of the runtime.
 */
const onManagedRuntime = async (
  endpoint: Endpoint,
  open: (runtime: ManagedRuntime.ManagedRuntime<McpClient.McpClient, unknown>) => Promise<Omit<Session, "close">>
): Promise<Session> => {
  const [NodeMcpClient, { make }, server] = await Promise.all([
    import("@mcp-effect/node/NodeMcpClient"),
    import("effect/ManagedRuntime"),
    ourServer(endpoint)
  ])
  const runtime = make(NodeMcpClient.layer({ servers: [server], clientInfo }))
  try {
    return { ...await open(runtime), close: () => runtime.dispose() }
  } catch (error) {
    await runtime.dispose()
    throw error
  }
}

/** The Effect API as existing async code calls it: one `runtime.runPromise` per call. */
const openOursRuntime = (endpoint: Endpoint): Promise<Session> =>
  onManagedRuntime(endpoint, async (runtime) => {
    const { McpClient: Tag } = await import("@mcp-effect/client/McpClient")
    const client = await runtime.runPromise(Tag)
    const callTool = (name: string, args: Record<string, unknown>) => runtime.runPromise(client.callTool(name, args))
    return {
      era: client.servers[0]?.negotiated()?.protocolVersion ?? "?",
      callTool,
      listTools: () => runtime.runPromise(client.listTools()),
      ...promiseLoops(callTool)
    }
  })

/** Plain async code in an Effect application: the runtime called through `Connect.fromRuntime`. */
const openOursFromRuntime = (endpoint: Endpoint): Promise<Session> =>
  onManagedRuntime(endpoint, async (runtime) => {
    const { fromRuntime } = await import("@mcp-effect/node/Connect")
    const client = await fromRuntime(runtime)
    const callTool = (name: string, args: Record<string, unknown>) => client.callTool(name, args)
    return {
      era: client.servers[0]?.protocolVersion ?? "?",
      callTool,
      listTools: () => client.listTools(),
      ...promiseLoops(callTool)
    }
  })

/**
 * The Promise facade's `connect`: the package's, or the standalone bundle's; each from the entry
 * a user imports it from (the README's `import { connect } from "@mcp-effect/node"`), so that a
 * first connect does not load another entry module inside its measured time.
 */
const facadeConnect = async (standalone: boolean) =>
  standalone
    ? (await import("@mcp-effect/node/standalone")).connect
    : (await import("@mcp-effect/node")).connect

const openOursPromise = async (
  endpoint: Endpoint,
  standalone: boolean,
  options: OpenOptions = {}
): Promise<Session> => {
  const connect = await facadeConnect(standalone)
  const reconnect = options.reconnect === true ? { reconnect: reconnectPolicy } : {}
  const client = endpoint.kind === "stdio"
    ? await connect([endpoint.command, ...endpoint.args], {
      name: "bench",
      env: endpoint.env,
      clientInfo,
      stderr: "ignore",
      ...reconnect
    })
    : await connect(endpoint.url, { name: "bench", clientInfo, ...reconnect })
  const callTool = (name: string, args: Record<string, unknown>) => client.callTool(name, args)
  return {
    era: client.servers[0]?.protocolVersion ?? "?",
    callTool,
    listTools: () => client.listTools(),
    ...promiseLoops(callTool),
    close: () => client.close()
  }
}

/** Connects over stdio; resolves with the negotiated version. */
const connectV1Stdio = async (client: V1Client, endpoint: Extract<Endpoint, { kind: "stdio" }>): Promise<string> => {
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js")
  const transport = new StdioClientTransport({
    command: endpoint.command,
    args: [...endpoint.args],
    env: endpoint.env,
    stderr: "ignore"
  })
  let era = "?"
  // The stdio transport does not keep the negotiated version; the client hands it over here.
  Object.assign(transport, {
    setProtocolVersion: (version: string) => {
      era = version
    }
  })
  await client.connect(transport)
  return era
}

const connectV1Http = async (client: V1Client, url: string): Promise<string> => {
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js")
  const transport = new StreamableHTTPClientTransport(new URL(url))
  await client.connect(transport)
  return transport.protocolVersion ?? "?"
}

const openV1 = async (endpoint: Endpoint): Promise<Session> => {
  // Each transport's module is loaded only when used, as a user's program would.
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js")
  const client = new Client(clientInfo)
  const era = endpoint.kind === "stdio"
    ? await connectV1Stdio(client, endpoint)
    : await connectV1Http(client, endpoint.url)
  const callTool = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args })
  return {
    era,
    callTool,
    listTools: () => client.listTools(),
    ...promiseLoops(callTool),
    close: () => client.close()
  }
}

const openV2 = async (endpoint: Endpoint, mode: "legacy" | "auto"): Promise<Session> => {
  const { Client: V2Client, StreamableHTTPClientTransport: V2HttpTransport } = await import(
    "@modelcontextprotocol/client"
  )
  const client = new V2Client(clientInfo, { versionNegotiation: { mode } })
  if (endpoint.kind === "stdio") {
    const { StdioClientTransport: V2StdioTransport } = await import("@modelcontextprotocol/client/stdio")
    await client.connect(
      new V2StdioTransport({ command: endpoint.command, args: [...endpoint.args], env: endpoint.env, stderr: "ignore" })
    )
  } else {
    await client.connect(new V2HttpTransport(new URL(endpoint.url)))
  }
  const callTool = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args })
  return {
    era: client.getNegotiatedProtocolVersion() ?? "?",
    callTool,
    listTools: () => client.listTools(),
    ...promiseLoops(callTool),
    close: () => client.close()
  }
}

const openRawSession = async (endpoint: Endpoint, era: "2025-11-25" | "2026-07-28"): Promise<Session> => {
  const { openRaw } = await import("./raw.js")
  const session = await openRaw(endpoint, era)
  const callTool = (name: string, args: Record<string, unknown>) =>
    session.request("tools/call", { name, arguments: args })
  return {
    era: session.era,
    callTool,
    listTools: () => session.request("tools/list", {}),
    ...promiseLoops(callTool),
    close: session.close
  }
}

/**
 * Loads the client's modules (so that timing the first connect leaves module loading out).
 *
 * @since 0.1.0
 */
export const preload = async (client: ClientName): Promise<void> => {
  switch (client) {
    case "ours":
      await Promise.all([import("@mcp-effect/node/NodeMcpClient"), import("@mcp-effect/client/McpClient")])
      return
    case "ours-promise":
    case "ours-standalone":
      await facadeConnect(client === "ours-standalone")
      return
    case "ours-runtime":
      await Promise.all([
        import("@mcp-effect/node/NodeMcpClient"),
        import("@mcp-effect/client/McpClient"),
        import("effect/ManagedRuntime")
      ])
      return
    case "ours-from-runtime":
      await Promise.all([
        import("@mcp-effect/node/NodeMcpClient"),
        import("@mcp-effect/node/Connect"),
        import("effect/ManagedRuntime")
      ])
      return
    case "v1":
      await import("@modelcontextprotocol/sdk/client/index.js")
      return
    case "v2-legacy":
    case "v2-auto":
      await import("@modelcontextprotocol/client")
      return
    case "raw":
    case "raw-2026":
      await import("./raw.js")
  }
}

/**
 * Connects `client` to `endpoint`, resolving once the handshake (or probe) is done.
 *
 * @since 0.1.0
 */
export const open = (client: ClientName, endpoint: Endpoint, options?: OpenOptions): Promise<Session> => {
  switch (client) {
    case "ours":
      return openOurs(endpoint, options)
    case "ours-promise":
      return openOursPromise(endpoint, false, options)
    case "ours-standalone":
      return openOursPromise(endpoint, true)
    case "ours-runtime":
      return openOursRuntime(endpoint)
    case "ours-from-runtime":
      return openOursFromRuntime(endpoint)
    case "v1":
      return openV1(endpoint)
    case "v2-legacy":
      return openV2(endpoint, "legacy")
    case "v2-auto":
      return openV2(endpoint, "auto")
    case "raw":
      return openRawSession(endpoint, "2025-11-25")
    case "raw-2026":
      return openRawSession(endpoint, "2026-07-28")
  }
}
