/**
 * The server configurations of `connect`'s targets and options.
 *
 * @internal
 */
import { ConfigError } from "@mcp-effect/client/McpError"
import * as Target from "@mcp-effect/client/Target"
import * as Effect from "effect/Effect"
import type { ConnectOptions } from "../../Connect.js"
import type { NetworkOptions } from "../../UndiciHttpClient.js"
import * as LazyOAuth from "../lazyOAuth.js"

/** The server configurations for one target or a list of them. */
export const configsFor = (
  targets: Target.Target | ReadonlyArray<Target.Target>,
  options: ConnectOptions = {}
) => {
  const list: ReadonlyArray<Target.Target> = typeof targets !== "string" && Target.isTargetList(targets)
    ? targets as ReadonlyArray<Target.Target>
    : [targets as Target.Target]
  if (list.length > 1 && options.name !== undefined) {
    return Effect.fail(new ConfigError({ message: "name applies to a single target only" }))
  }
  if (options.protocol === "modern" && list.some((target) => detectsSse(target, options))) {
    return Effect.fail(
      new ConfigError({
        message: "protocol: \"modern\" cannot be used with the HTTP+SSE transport, which is legacy only"
      })
    )
  }
  const taken = new Map<string, number>()
  return Effect.forEach(list, (target) =>
    Effect.map(
      Effect.flatMap(
        authFor(target, options),
        (auth) => Target.toConfig(target, auth === undefined ? options : { ...options, auth })
      ),
      (config) => {
        // Names derived from targets are made unique: `node`, `node-2`, …
        const seen = (taken.get(config.name) ?? 0) + 1
        taken.set(config.name, seen)
        return seen === 1 ? config : { ...config, name: `${config.name}-${seen}` }
      }
    ))
}

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

const detectsSse = (target: Target.Target, options: ConnectOptions) =>
  options.transport === "sse" || (options.transport === undefined && Target.detect(target).transport === "sse")

/** The network options of `options` (the same for the MCP traffic and OAuth's). */
export const networkOf = (options: NetworkOptions): NetworkOptions => ({
  proxy: options.proxy,
  ca: options.ca,
  proxyEnv: options.proxyEnv
})
