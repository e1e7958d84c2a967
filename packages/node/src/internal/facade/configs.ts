/**
 * The server configurations of `connect`'s targets and options.
 *
 * @internal
 */
import * as Facade from "@mcp-effect/client/Facade"
import { ConfigError } from "@mcp-effect/client/McpError"
import * as Target from "@mcp-effect/client/Target"
import * as Effect from "effect/Effect"
import type { NetworkOptions } from "../../UndiciHttpClient.js"
import * as LazyOAuth from "../lazyOAuth.js"
import type { ConnectOptions } from "./types.js"

/** The server configurations for one target or a list of them. */
export const configsFor = (
  targets: Target.Target | Target.Named | ReadonlyArray<Target.Target | Target.Named>,
  options: ConnectOptions = {}
) => Facade.configsFor(targets, options, authFor)

/** The OAuth of a URL target when `oauth` is set. */
const authFor = (target: Target.Target, options: ConnectOptions) => {
  const oauth = options.oauth
  if (oauth === undefined) return Effect.succeed(undefined)
  if (options.auth !== undefined) return Effect.fail(new ConfigError({ message: "oauth and auth exclude each other" }))
  return Effect.flatMap(Target.parse(target), (detected) =>
    detected.transport === "stdio"
      ? Effect.succeed(undefined)
      : Effect.flatMap(
        Effect.promise(LazyOAuth.load),
        (NodeOAuth) => NodeOAuth.fromSettingsGlobal(detected.url, oauth, { network: networkOf(options) })
      ))
}

/** The network options of `options` (the same for the MCP traffic and OAuth's). */
export const networkOf = (options: NetworkOptions): NetworkOptions => ({
  proxy: options.proxy,
  ca: options.ca,
  proxyEnv: options.proxyEnv
})
