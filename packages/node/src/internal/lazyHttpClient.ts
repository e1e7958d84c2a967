/**
 * The undici `HttpClient`, loaded with the first HTTP request: undici (about 20 MiB of memory
 * and a good share of the start-up CPU) is never loaded by a process that only talks to stdio
 * servers. After the first request, requests go straight to the loaded client.
 *
 * @internal
 */
import type * as Undici from "@effect/platform-node/Undici"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import { RawBodiesTypeId } from "@mcp-effect/client/Http"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Postprocess } from "./undiciHttpClient.js"

/** A client, and the release of what it built (the dispatcher, when it is the client's own). */
export interface Lazy {
  readonly client: HttpClient.HttpClient
  readonly release: () => Promise<void>
}

/**
 * `dispatcher`: `"scoped"` for an undici `Agent` of this client's own (destroyed by `release`),
 * `"global"` for undici's global dispatcher, or a dispatcher of the caller's.
 *
 * @internal
 */
export const make = (dispatcher: "scoped" | "global" | Undici.Dispatcher): Lazy => {
  let loaded: Postprocess | undefined
  let loading: Promise<Postprocess> | undefined
  let destroy: (() => Promise<void>) | undefined
  let released = false
  const load = () =>
    loading ??= Promise.all([import("@effect/platform-node/Undici"), import("./undiciHttpClient.js")]).then(
      ([{ default: Undici }, undiciHttpClient]) => {
        // The default export: a bundler's chunk of this module keeps no named exports of undici.
        const agent = dispatcher === "global"
          ? Undici.getGlobalDispatcher()
          : dispatcher === "scoped"
          ? new Undici.Agent()
          : dispatcher
        if (dispatcher === "scoped") destroy = () => agent.destroy()
        // Released while loading: nothing may keep the new agent's sockets open.
        if (released) void destroy?.()
        return loaded = undiciHttpClient.postprocess(agent)
      }
    )
  const client = HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
    (request) => loaded !== undefined ? loaded(request) : Effect.flatMap(Effect.promise(load), (send) => send(request)),
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

/**
 * The lazy client as a layer, its dispatcher (when it built one) released with the layer.
 *
 * @internal
 */
export const layer = (dispatcher: "scoped" | "global"): Layer.Layer<HttpClient.HttpClient> =>
  Layer.scoped(
    HttpClient.HttpClient,
    Effect.map(
      Effect.acquireRelease(Effect.sync(() => make(dispatcher)), (http) => Effect.promise(http.release)),
      (http) => http.client
    )
  )
