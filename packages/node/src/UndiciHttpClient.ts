/**
 * An `HttpClient` on undici's dispatcher API, cheaper per request than `@effect/platform-node`'s
 * `NodeHttpClient.layerUndici` (no `AbortController`, Node `Readable` or `FinalizationRegistry`
 * entry per request), whose responses also hand their body to a callback chunk by chunk
 * (`Http.BodyReader`), which the MCP transports read without a `Stream`. Requests with a stream
 * or form-data body, requests that would be traced, `HttpClient.withScope` requests and requests
 * with `NodeHttpClient.UndiciRequestOptions` in context go through the platform's undici client on
 * the same dispatcher, so those work as there.
 *
 * Its layers honour `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` (either case) through undici's
 * `EnvHttpProxyAgent`; {@link layerWith} also takes a `proxy` and extra CAs (`ca`).
 *
 * On Bun, whose undici has no dispatcher API, the layers are the platform's fetch client on Bun's
 * fetch instead (the `proxy` and `ca` given to it; see docs/runtimes.md); {@link make} and
 * {@link layerWithoutDispatcher} take a dispatcher and need a real undici.
 *
 * @since 0.1.0
 */
import type * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as Undici from "@effect/platform-node/Undici"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientTag from "@effect/platform/HttpClient"
import type { ConfigError } from "@mcp-effect/client/McpError"
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
 * A proxy and CAs for the HTTP client, read once when the client is built.
 *
 * @since 0.2.0
 * @category models
 */
export interface NetworkOptions {
  /**
   * Every request through this proxy (`http://[user:password@]host:port`, or `https:`), or
   * `false` for none; either way `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` are not read.
   * Default: those variables (either case; `HTTPS_PROXY` unset means `HTTP_PROXY` for `https:`).
   */
  readonly proxy?: string | false | undefined
  /**
   * Certificates (PEM text, one or several per string) trusted beside Node's own CAs (and
   * `NODE_EXTRA_CA_CERTS`): a company root, a self-signed server. Used for servers reached
   * directly, through a proxy's tunnel, and for an `https:` proxy.
   */
  readonly ca?: string | ReadonlyArray<string> | undefined
  /** Where the proxy variables are read (default `process.env`). */
  readonly proxyEnv?: Readonly<Record<string, string | undefined>> | undefined
}

/**
 * The client with network options: on a dispatcher of its own, destroyed with the layer, or
 * (`dispatcher: "global"`) on one the process shares (undici's global dispatcher when there is
 * neither a proxy nor a CA). A malformed `proxy` or `ca` fails with `ConfigError`; a malformed
 * proxy variable fails each request instead (an `EPROXY` cause naming the variable).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerWith = (
  options: NetworkOptions & { readonly dispatcher?: "scoped" | "global" | undefined }
): Layer.Layer<HttpClient.HttpClient, ConfigError> => LazyHttpClient.layerWith(options.dispatcher ?? "scoped", options)

/**
 * The client on a dispatcher (an undici `Agent`, or the environment's proxy agent) of its own,
 * destroyed with the layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<HttpClient.HttpClient> = LazyHttpClient.layer("scoped")

/**
 * The client on undici's global dispatcher (which outlives any scope), or on the process's
 * agent of the environment's proxy.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerGlobal: Layer.Layer<HttpClient.HttpClient> = LazyHttpClient.layer("global")
