/**
 * The HTTP client on Bun: Bun's `undici` is a shim without the dispatcher API
 * (`dispatcher.request is not a function`), so Bun gets the platform's fetch client, on Bun's own
 * fetch (native, and far cheaper there than Node's). That fetch decodes content codings itself, so
 * the client is not marked as handing bodies over raw. Network settings become Bun's fetch
 * options (`proxy`, `tls.ca`); without a `proxy` option Bun's fetch reads `HTTP_PROXY`,
 * `HTTPS_PROXY` and `NO_PROXY` itself. Redirects are never followed by fetch (which would carry
 * configured headers to another origin): the transports own the redirect loop.
 *
 * @internal
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as Effect from "effect/Effect"
import type * as Network from "./network.js"

/**
 * Whether this is Bun (which also defines `process.versions.node`).
 *
 * @internal
 */
export const isBun = (): boolean => (globalThis as { readonly Bun?: unknown }).Bun !== undefined

/** Bun's extensions of `RequestInit`. */
interface BunRequestInit extends RequestInit {
  readonly proxy?: string
  readonly tls?: { readonly ca?: ReadonlyArray<string> }
}

const fetchClient = Effect.runSync(Effect.provide(HttpClient.HttpClient, FetchHttpClient.layer))

/**
 * The fetch client with `settings`. A malformed proxy variable fails every request, as on Node.
 *
 * @internal
 */
export const make = (settings: Network.Settings | undefined): HttpClient.HttpClient => {
  const proxy = settings?.proxy
  if (proxy?._tag === "Invalid") {
    // The same `EPROXY` failure as on Node, its module loaded only for such a client.
    return HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
      (request) =>
        Effect.flatMap(
          Effect.promise(() => import("./proxyAgent.js")),
          (ProxyAgent) => ProxyAgent.rejectAll(proxy.message)(request)
        ),
      Effect.succeed
    )
  }
  const init: BunRequestInit = {
    redirect: "manual",
    ...(proxy?._tag === "Explicit" ? { proxy: proxy.url } : {}),
    ...(settings?.ca === undefined ? {} : { tls: { ca: settings.ca } })
  }
  return HttpClient.transformResponse(fetchClient, Effect.provideService(FetchHttpClient.RequestInit, init))
}
