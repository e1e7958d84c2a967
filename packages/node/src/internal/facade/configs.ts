/**
 * The server configurations of `connect`'s targets and options.
 *
 * @internal
 */
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
) => {
  const list: ReadonlyArray<Target.Target | Target.Named> =
    typeof targets !== "string" && !Target.isNamed(targets) && Target.isTargetList(targets)
      ? targets
      : [targets as Target.Target | Target.Named]
  if (list.length > 1 && options.name !== undefined) {
    return Effect.fail(new ConfigError({ message: "name applies to a single target only" }))
  }
  const unnamed = list.map((entry) => Target.isNamed(entry) ? entry.target : entry)
  if (options.protocol === "modern" && unnamed.some((target) => detectsSse(target, options))) {
    return Effect.fail(
      new ConfigError({
        message: "protocol: \"modern\" cannot be used with the HTTP+SSE transport, which is legacy only"
      })
    )
  }
  const given = options.name === undefined ? list : [{ name: options.name, target: unnamed[0]! }]
  return Effect.flatMap(Target.nameAll(given), (named) =>
    Effect.forEach(named, ({ name, target }) =>
      Effect.flatMap(
        authFor(target, options),
        (auth) =>
          Effect.map(
            Target.toConfig(target, auth === undefined ? { ...options, name } : { ...options, name, auth }),
            (config) =>
              Object.assign(
                config,
                options.tools === undefined ? {} : { tools: options.tools },
                options.toolPrefix === undefined ? {} : { toolPrefix: options.toolPrefix },
                options.toolNames === undefined ? {} : { toolNames: options.toolNames }
              )
          )
      )))
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
