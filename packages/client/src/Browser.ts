/**
 * The client in a browser page (or any runtime with `fetch` and no processes): the `McpClient`
 * layer over `FetchHttpClient`, and the Promise facade `connect(url)` — the Node facade's surface
 * and errors, minus stdio servers, network settings (proxies, CAs: the browser's own apply) and
 * the loopback OAuth flow — a page signs in through a popup or a full-page redirect instead
 * (`oauth`, see `BrowserOAuth`). See docs/browser.md for CORS, bundlers, OAuth and limits.
 *
 * @example
 * ```ts
 * import * as Browser from "@mcp-effect/client/Browser"
 *
 * const client = await Browser.connect("https://mcp.example.com/mcp")
 * const tools = await client.listTools()
 * const result = await client.callTool(tools[0]!.name, {})
 * await client.close()
 * ```
 *
 * @since 0.2.0
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as BrowserJsonSchema from "./BrowserJsonSchema.js"
import type * as BrowserOAuth from "./BrowserOAuth.js"
import * as Facade from "./Facade.js"
import * as BrowserOAuthInternal from "./internal/auth/browserOAuth.js"
import { run } from "./internal/facade/run.js"
import * as JsonSchema from "./JsonSchema.js"
import type { AuthFailure } from "./McpAuth.js"
import * as McpClient from "./McpClient.js"
import type { ConnectError } from "./McpError.js"
import { ConfigError } from "./McpError.js"
import type { ServerConfig } from "./ServerConfig.js"
import * as Target from "./Target.js"

/**
 * The options of {@link connect}: the facade's shared ones (`headers`, `auth`, `readTimeout`,
 * `protocol`, handlers, listeners, limits, …), and where output schemas are validated
 * (`jsonSchema`, see {@link LayerOptions}).
 *
 * @since 0.2.0
 * @category models
 */
export type ConnectOptions = Facade.FacadeOptions & LayerOptions & OAuthOptions

/**
 * OAuth for every URL target of {@link connect} (excludes `auth`): the popup or the full-page
 * redirect flow of `BrowserOAuth`. With the redirect flow, the request that needs authorization
 * sends the page away; the next `connect` with the same settings, on the page come back,
 * completes the callback first.
 *
 * @since 0.2.0
 * @category models
 */
export interface OAuthOptions {
  readonly oauth?: BrowserOAuth.Settings | undefined
}

/**
 * Where {@link layer} validates output schemas: in a Web Worker with a hard deadline
 * (`BrowserJsonSchema`, the default, its options here), or `"in-process"` (`JsonSchema.layer`:
 * no worker, no hard deadline).
 *
 * @since 0.2.0
 * @category models
 */
export interface LayerOptions {
  readonly jsonSchema?: BrowserJsonSchema.Options | "in-process" | undefined
}

/**
 * The client {@link connect} resolves with (see `Facade.Client`).
 *
 * @since 0.2.0
 * @category models
 */
export type Client = Facade.Client

/**
 * `McpClient.layer` over `FetchHttpClient`, validating output schemas in a Web Worker with a hard
 * deadline (`BrowserJsonSchema`; in-process where `Worker` does not exist): the Effect API in a
 * page.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (
  options: McpClient.Options<HttpClient.HttpClient>,
  platform: LayerOptions = {}
): Layer.Layer<McpClient.McpClient, ConnectError | ConfigError> =>
  Layer.provide(
    McpClient.layer(options),
    Layer.merge(
      FetchHttpClient.layer,
      platform.jsonSchema === "in-process"
        ? JsonSchema.layer()
        : BrowserJsonSchema.layer(platform.jsonSchema)
    )
  )

/** A browser runs no processes: a stdio target is a `ConfigError` before anything is sent. */
const withoutStdio = (
  configs: ReadonlyArray<ServerConfig<Target.Requirements>>
): Effect.Effect<ReadonlyArray<ServerConfig<HttpClient.HttpClient>>, ConfigError> => {
  const stdio = configs.find((config) => config.kind === "stdio")
  return stdio === undefined
    ? Effect.succeed(configs as ReadonlyArray<ServerConfig<HttpClient.HttpClient>>)
    : Effect.fail(new ConfigError({ message: `${stdio.name}: a browser cannot start a process; give a server URL` }))
}

/**
 * Connects to one server URL or several (a list may name them: `[{ name, target }]`) over
 * `fetch`, and resolves once every one is connected. Rejects with the Effect API's error classes:
 * `ConfigError` for a target that is no http(s) URL (a command line included), `ConnectionError`
 * for a server that cannot be reached (`reason: "cors"` when the browser refused the response).
 *
 * @since 0.2.0
 * @category constructors
 */
export const connect = async (
  targets: Target.Target | Target.Named | ReadonlyArray<Target.Target | Target.Named>,
  options: ConnectOptions = {}
): Promise<Client> => {
  // Each URL target's OAuth, and the completion of a redirect callback that answers it.
  const completions: Array<Effect.Effect<boolean, AuthFailure>> = []
  const authFor = (target: Target.Target, settings: ConnectOptions) => {
    const oauth = settings.oauth
    if (oauth === undefined) return Effect.succeed(undefined)
    if (settings.auth !== undefined) {
      return Effect.fail(new ConfigError({ message: "oauth and auth exclude each other" }))
    }
    return Effect.flatMap(
      Target.parse(target),
      (detected) =>
        detected.transport === "stdio" ?
          Effect.succeed(undefined) :
          BrowserOAuthInternal.make(detected.url, oauth).pipe(
            Effect.map(({ auth, complete }) => {
              completions.push(complete)
              return auth
            }),
            Effect.provide(FetchHttpClient.layer)
          )
    )
  }
  const servers = await run(
    Effect.flatMap(Facade.configsFor(targets, options, authFor), withoutStdio).pipe(
      Effect.tap(() => Effect.forEach(completions, (complete) => complete, { discard: true }))
    )
  )
  return Facade.open(servers, options, (clientOptions) =>
    Layer.provideMerge(
      layer(clientOptions, { jsonSchema: options.jsonSchema }),
      Logger.minimumLogLevel(LogLevel.fromLiteral(options.logLevel ?? "Warning"))
    ))
}
