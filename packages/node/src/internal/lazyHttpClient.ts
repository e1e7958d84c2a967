/**
 * The undici `HttpClient`, loaded with the first HTTP request: undici (about 20 MiB of memory
 * and a good share of the start-up CPU) is never loaded by a process that only talks to stdio
 * servers. After the first request, requests go straight to the loaded client. On Bun, whose
 * undici has no dispatcher API, the client is the fetch client instead (`bunHttpClient.ts`).
 *
 * @internal
 */
import type * as Undici from "@effect/platform-node/Undici"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import { RawBodiesTypeId } from "@mcp-effect/client/Http"
import type { ConfigError } from "@mcp-effect/client/McpError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { NetworkOptions } from "../UndiciHttpClient.js"
import * as BunHttpClient from "./bunHttpClient.js"
import * as Network from "./network.js"
import * as NodeUndici from "./nodeUndici.js"
import type * as ProxyAgentModule from "./proxyAgent.js"
import type * as UndiciHttpClientModule from "./undiciHttpClient.js"
import type { Postprocess } from "./undiciHttpClient.js"

/** A client, and the release of what it built (the dispatcher, when it is the client's own). */
export interface Lazy {
  readonly client: HttpClient.HttpClient
  readonly release: () => Promise<void>
}

/**
 * `dispatcher`: `"scoped"` for an undici `Agent` of this client's own (destroyed by `release`),
 * `"global"` for undici's global dispatcher, or a dispatcher of the caller's. With `settings`
 * (a proxy, CAs), `"scoped"` and `"global"` are a dispatcher of those settings instead: the
 * client's own, or one the process shares between clients of the same settings.
 *
 * @internal
 */
export const make = (dispatcher: "scoped" | "global" | Undici.Dispatcher, settings?: Network.Settings): Lazy => {
  if (BunHttpClient.isBun() && typeof dispatcher !== "object") {
    return { client: BunHttpClient.make(settings), release: () => Promise.resolve() }
  }
  let loaded: Postprocess | undefined
  let loading: Promise<Postprocess> | undefined
  let destroy: (() => Promise<void>) | undefined
  let released = false
  // Network settings choose the client's own dispatcher; a caller's dispatcher is the caller's.
  const network = typeof dispatcher === "object" ? undefined : settings
  const settle = (
    undiciHttpClient: typeof UndiciHttpClientModule,
    agent: Undici.Dispatcher,
    ProxyAgent: typeof ProxyAgentModule | undefined
  ): Postprocess => {
    if (dispatcher === "scoped") destroy = () => agent.destroy()
    // Released while loading: nothing may keep the new agent's sockets open.
    if (released) void destroy?.()
    const send = undiciHttpClient.postprocess(agent)
    const proxy = network?.proxy
    if (proxy === undefined || ProxyAgent === undefined) return loaded = send
    const failure = ProxyAgent.proxyFailure(proxy)
    return loaded = (request) => Effect.mapError(send(request), failure)
  }
  const loadUndici = () =>
    Promise.all([
      import("@effect/platform-node/Undici"),
      importUndiciHttpClient(),
      network === undefined ? undefined : import("./proxyAgent.js")
    ]).then(
      ([{ default: Undici }, undiciHttpClient, ProxyAgent]) => {
        const proxy = network?.proxy
        if (proxy?._tag === "Invalid" && ProxyAgent !== undefined) return loaded = ProxyAgent.rejectAll(proxy.message)
        // The default export: a bundler's chunk of this module keeps no named exports of undici.
        const agent = typeof dispatcher === "object"
          ? dispatcher
          : ProxyAgent !== undefined && network !== undefined
          ? (dispatcher === "global" ? ProxyAgent.global : ProxyAgent.make)(
            Undici as unknown as ProxyAgentModule.UndiciClasses,
            network
          )
          : dispatcher === "global"
          ? Undici.getGlobalDispatcher()
          : new Undici.Agent()
        return settle(undiciHttpClient, agent, ProxyAgent)
      }
    )
  // The global dispatcher without the undici package when Node's own undici provides it.
  const nodeGlobal = () => dispatcher === "global" && network === undefined ? NodeUndici.globalDispatcher() : undefined
  const load = () => {
    if (loading !== undefined) return loading
    const global = nodeGlobal()
    return loading = global === undefined
      ? loadUndici()
      : importUndiciHttpClient().then((undiciHttpClient) => settle(undiciHttpClient, global, undefined))
  }
  // A client built after the module was loaded (by any client) settles on its first request at
  // once: no `import()` and no turn of the event loop per client.
  const loadedNow = (): Postprocess | undefined => {
    if (loaded !== undefined || loading !== undefined || undiciHttpClientModule === undefined) return loaded
    const global = nodeGlobal()
    return global === undefined ? undefined : settle(undiciHttpClientModule, global, undefined)
  }
  const client = HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
    (request) => {
      const send = loadedNow()
      return send !== undefined ? send(request) : Effect.flatMap(Effect.promise(load), (send) => send(request))
    },
    Effect.succeed
  )
  // Every path of the client (the platform's undici client included) leaves content codings on.
  Object.assign(client, { [RawBodiesTypeId]: true })
  return {
    client,
    release: async () => {
      released = true
      await destroy?.()
    }
  }
}

// The client module once loaded, for the clients built after (see `loadedNow`).
let undiciHttpClientModule: typeof UndiciHttpClientModule | undefined
const importUndiciHttpClient = () => import("./undiciHttpClient.js").then((module) => undiciHttpClientModule = module)

const layerOf = <E>(
  dispatcher: "scoped" | "global",
  settings: Effect.Effect<Network.Settings | undefined, E>
): Layer.Layer<HttpClient.HttpClient, E> =>
  Layer.scoped(
    HttpClient.HttpClient,
    Effect.map(
      Effect.acquireRelease(
        Effect.map(settings, (settings) => make(dispatcher, settings)),
        (http) => Effect.promise(http.release)
      ),
      (http) => http.client
    )
  )

/**
 * The lazy client as a layer, its dispatcher (when it built one) released with the layer,
 * through the proxy the environment names when the layer is built.
 *
 * @internal
 */
export const layer = (dispatcher: "scoped" | "global"): Layer.Layer<HttpClient.HttpClient> =>
  layerOf(dispatcher, Effect.sync(() => Network.environment()))

/**
 * {@link layer} with network options, read when the layer is built; malformed ones fail it.
 *
 * @internal
 */
export const layerWith = (
  dispatcher: "scoped" | "global",
  options: NetworkOptions
): Layer.Layer<HttpClient.HttpClient, ConfigError> =>
  layerOf(dispatcher, Effect.suspend(() => Network.settings(options)))
