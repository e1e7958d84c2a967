/**
 * MCP bundles (`.mcpb`, formerly `.dxt`): a zip of a server and its `manifest.json`. This
 * module reads the manifest, checks the user's answers to its `user_config` questions and
 * builds the stdio entry that runs the server from where the bundle was unpacked; unpacking is
 * the platform's (`NodeMcpBundle`).
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Jsonc from "./internal/config/jsonc.js"
import * as internal from "./internal/config/mcpb.js"
import type { StdioEntry } from "./McpConfig.js"
import { ConfigError } from "./McpError.js"

/**
 * One question of a bundle's `user_config`.
 *
 * @since 0.2.0
 * @category models
 */
export interface UserConfigField {
  readonly key: string
  readonly type: "string" | "number" | "boolean" | "directory" | "file"
  readonly title: string
  readonly description?: string | undefined
  readonly required: boolean
  readonly default?: UserConfigValue | undefined
  /** Several values (directories, for instance); each becomes an argument of its own. */
  readonly multiple: boolean
  /** A secret: a host should not echo or log it. */
  readonly sensitive: boolean
  readonly min?: number | undefined
  readonly max?: number | undefined
}

/**
 * An answer: a string (also for `directory` and `file`), a number, a boolean, or several
 * strings for a `multiple` field.
 *
 * @since 0.2.0
 * @category models
 */
export type UserConfigValue = string | number | boolean | ReadonlyArray<string>

/**
 * What is read from `manifest.json`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Manifest {
  readonly name: string
  readonly version?: string | undefined
  readonly displayName?: string | undefined
  readonly description?: string | undefined
  readonly server: {
    /** `node`, `python`, `binary` or `uv`. */
    readonly type: string
    readonly entryPoint?: string | undefined
    /** `command`, `args`, `env` and `platform_overrides`, as written. */
    readonly mcpConfig?: Readonly<Record<string, unknown>> | undefined
  }
  readonly userConfig: ReadonlyArray<UserConfigField>
  /** `compatibility.platforms`: `darwin`, `win32`, `linux`. */
  readonly platforms?: ReadonlyArray<string> | undefined
}

/**
 * Where the bundle was unpacked and what its references mean.
 *
 * @since 0.2.0
 * @category models
 */
export interface LaunchOptions {
  /** The folder the bundle was unpacked to (`${__dirname}`). */
  readonly directory: string
  readonly home: string
  /** `process.platform`: picks `platform_overrides` and the path separator. */
  readonly platform: string
  /** The answers to `user_config` (defaults fill the rest). */
  readonly values: Readonly<Record<string, UserConfigValue>>
}

const refused = (source: string, problems: ReadonlyArray<string>) =>
  new ConfigError({ message: problems.map((problem) => `${source}: ${problem}`).join("\n") })

/**
 * Parses and validates a bundle's `manifest.json`.
 *
 * @since 0.2.0
 * @category parsing
 */
export const parseManifest = (text: string, source = "manifest.json"): Effect.Effect<Manifest, ConfigError> =>
  Either.match(Either.flatMap(Either.mapLeft(Jsonc.parse(text), (problem) => [problem]), internal.decode), {
    onLeft: (problems) => Effect.fail(refused(source, problems)),
    onRight: Effect.succeed
  })

/**
 * The stdio entry that runs a bundle's server. Fails with `ConfigError` listing every required
 * `user_config` field without an answer, every answer of the wrong kind, and a platform the
 * bundle says it does not run on.
 *
 * @since 0.2.0
 * @category constructors
 */
export const toEntry = (manifest: Manifest, options: LaunchOptions): Effect.Effect<StdioEntry, ConfigError> => {
  const source = `bundle "${manifest.name}"`
  if (manifest.platforms !== undefined && !manifest.platforms.includes(options.platform)) {
    return Effect.fail(refused(source, [`runs on ${manifest.platforms.join(", ")}, not ${options.platform}`]))
  }
  const launched = Either.flatMap(
    internal.values(manifest, options.values),
    (values) => internal.launch(manifest, { ...options, values })
  )
  return Either.match(launched, {
    onLeft: (problems) => Effect.fail(refused(source, problems)),
    onRight: ({ args, command, env }) =>
      Effect.succeed({
        name: manifest.name,
        type: "stdio" as const,
        command,
        args,
        env: Object.keys(env).length > 0 ? env : undefined,
        cwd: options.directory,
        disabled: false
      })
  })
}
