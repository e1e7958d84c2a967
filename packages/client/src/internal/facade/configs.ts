/**
 * The server configurations of a facade's targets and options, whatever the platform; the
 * platform says how a URL target gets its credentials (`authFor`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { McpAuth } from "../../McpAuth.js"
import { ConfigError } from "../../McpError.js"
import * as Target from "../../Target.js"
import type { FacadeOptions } from "./types.js"

/** How a platform gives a target its `McpAuth` (none: `undefined`). */
export type AuthFor<O> = (target: Target.Target, options: O) => Effect.Effect<McpAuth | undefined, ConfigError>

/** The server configurations for one target or a list of them. */
export const configsFor = <O extends FacadeOptions>(
  targets: Target.Target | Target.Named | ReadonlyArray<Target.Target | Target.Named>,
  options: O,
  authFor: AuthFor<O>
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

const detectsSse = (target: Target.Target, options: FacadeOptions) =>
  options.transport === "sse" || (options.transport === undefined && Target.detect(target).transport === "sse")
