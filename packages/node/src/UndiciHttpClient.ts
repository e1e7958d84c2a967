/**
 * An `HttpClient` on undici's dispatcher API, cheaper per request than `@effect/platform-node`'s
 * `NodeHttpClient.layerUndici` (no `AbortController`, Node `Readable` or `FinalizationRegistry`
 * entry per request), whose responses also hand their body to a callback chunk by chunk
 * (`Http.BodyReader`), which the MCP transports read without a `Stream`. Requests with a stream
 * or form-data body, requests that would be traced, `HttpClient.withScope` requests and requests
 * with `NodeHttpClient.UndiciRequestOptions` in context go through the platform's undici client on
 * the same dispatcher, so those work as there.
 *
 * @since 0.1.0
 */
import type * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as Undici from "@effect/platform-node/Undici"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientTag from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LazyHttpClient from "./internal/lazyHttpClient.js"

// undici is loaded when a layer is built or the first request goes out, never by an import of
// this module (a process that only talks to stdio servers never loads it).
const nodeHttpClient = Effect.promise(() => import("@effect/platform-node/NodeHttpClient"))

/**
 * An `HttpClient` on `dispatcher`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (dispatcher: Undici.Dispatcher): HttpClient.HttpClient => LazyHttpClient.make(dispatcher).client

/**
 * The client on the `NodeHttpClient.Dispatcher` in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWithoutDispatcher: Layer.Layer<HttpClient.HttpClient, never, NodeHttpClient.Dispatcher> = Layer
  .unwrapEffect(
    Effect.map(nodeHttpClient, (Node) => Layer.effect(HttpClientTag.HttpClient, Effect.map(Node.Dispatcher, make)))
  )

/**
 * The client on a dispatcher (an undici `Agent`) of its own, destroyed with the layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<HttpClient.HttpClient> = Layer.unwrapEffect(
  Effect.map(nodeHttpClient, (Node) => Layer.provide(layerWithoutDispatcher, Node.dispatcherLayer))
)

/**
 * The client on undici's global dispatcher (which outlives any scope).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerGlobal: Layer.Layer<HttpClient.HttpClient> = Layer.unwrapEffect(
  Effect.map(nodeHttpClient, (Node) => Layer.provide(layerWithoutDispatcher, Node.dispatcherLayerGlobal))
)
