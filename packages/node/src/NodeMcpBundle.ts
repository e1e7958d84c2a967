/**
 * Runs an MCP bundle (`.mcpb`): unpacks it (with `fflate`) into a folder of its own — named
 * after the digest of the file, so an unchanged bundle is unpacked once — reads its manifest,
 * asks for the answers to its `user_config` through a callback, and gives the stdio
 * configuration that launches its server.
 *
 * ```ts
 * import * as McpClient from "@mcp-effect/client/McpClient"
 * import * as NodeMcpBundle from "@mcp-effect/node/NodeMcpBundle"
 * import * as Effect from "effect/Effect"
 *
 * const program = Effect.gen(function*() {
 *   const config = yield* NodeMcpBundle.load("./weather.mcpb", {
 *     userConfig: () => Effect.succeed({ api_key: process.env.WEATHER_KEY ?? "" })
 *   })
 *   return yield* McpClient.make({ servers: [config] })
 * })
 * ```
 *
 * @since 0.2.0
 */
import * as McpBundle from "@mcp-effect/client/McpBundle"
import * as McpConfig from "@mcp-effect/client/McpConfig"
import { ConfigError } from "@mcp-effect/client/McpError"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import type * as Target from "@mcp-effect/client/Target"
import * as Effect from "effect/Effect"
import * as Fflate from "fflate"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { configDirectory } from "./internal/configDirectory.js"

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /**
   * Answers the bundle's `user_config` questions (called only when it has some). Fields it
   * leaves out take their default; a required one without either fails the load.
   */
  readonly userConfig?:
    | ((
      fields: ReadonlyArray<McpBundle.UserConfigField>,
      manifest: McpBundle.Manifest
    ) => Effect.Effect<Readonly<Record<string, McpBundle.UserConfigValue>>, ConfigError>)
    | undefined
  /** Where bundles are unpacked (default {@link defaultDirectory}). */
  readonly directory?: string | undefined
  /** The most a bundle may unpack to, in bytes, as its zip declares (default 1 GiB): a bomb is refused. */
  readonly maxUnpackedBytes?: number | undefined
}

/**
 * An unpacked bundle.
 *
 * @since 0.2.0
 * @category models
 */
export interface Unpacked {
  readonly directory: string
  readonly manifest: McpBundle.Manifest
}

/**
 * `mcp-effect/bundles` in the user's configuration directory (beside the OAuth tokens).
 *
 * @since 0.2.0
 * @category utils
 */
export const defaultDirectory = (): string => Path.join(configDirectory(), "mcp-effect", "bundles")

const failure = (path: string, what: string) => (error: unknown) =>
  new ConfigError({ message: `${path}: ${what} (${error instanceof Error ? error.message : String(error)})` })

/** The entry's place under `root`, or undefined for a name that would leave it (`../`, `/etc`). */
const placed = (root: string, name: string): string | undefined => {
  if (name.includes("\0") || Path.isAbsolute(name) || /^[A-Za-z]:/.test(name)) return undefined
  const target = Path.resolve(root, name)
  return target.startsWith(root + Path.sep) ? target : undefined
}

const writeAll = async (root: string, files: Fflate.Unzipped): Promise<void> => {
  for (const [name, data] of Object.entries(files)) {
    if (name.endsWith("/")) continue
    const target = placed(root, name)
    if (target === undefined) throw new Error(`the entry "${name}" points outside the bundle`)
    await Fs.mkdir(Path.dirname(target), { recursive: true })
    // Executables lose their mode in most zips: everything is made runnable by its owner only.
    await Fs.writeFile(target, data, { mode: 0o700 })
  }
}

const DEFAULT_MAX_UNPACKED = 1024 * 1024 * 1024

/** The zip's files, refused before inflating when their declared sizes add up past `max`. */
const unzip = (bytes: Uint8Array, max: number): Fflate.Unzipped => {
  let total = 0
  return Fflate.unzipSync(bytes, {
    filter: (file) => {
      total += file.originalSize
      if (total > max) throw new Error(`it would unpack to more than ${max} bytes`)
      return true
    }
  })
}

/**
 * Unpacks a bundle (once per content) and reads its manifest.
 *
 * @since 0.2.0
 * @category constructors
 */
export const unpack = (
  path: string,
  directory?: string | undefined,
  maxUnpackedBytes: number = DEFAULT_MAX_UNPACKED
): Effect.Effect<Unpacked, ConfigError> =>
  Effect.gen(function*() {
    const bytes = yield* Effect.tryPromise({ try: () => Fs.readFile(path), catch: failure(path, "cannot read it") })
    const digest = Crypto.createHash("sha256").update(bytes).digest("hex").slice(0, 16)
    const root = Path.resolve(directory ?? defaultDirectory(), digest)
    const manifestPath = Path.join(root, "manifest.json")
    const existing = yield* Effect.promise(() => Fs.readFile(manifestPath, "utf8").catch(() => undefined))
    if (existing === undefined) {
      const files = yield* Effect.try({
        try: () => unzip(bytes, maxUnpackedBytes),
        catch: failure(path, "cannot unzip it")
      })
      if (files["manifest.json"] === undefined) {
        return yield* new ConfigError({ message: `${path}: no manifest.json at the top of the bundle` })
      }
      // Unpacked beside, then renamed: a half-unpacked bundle is never taken for a whole one.
      const staging = `${root}.${process.pid}.tmp`
      yield* Effect.tryPromise({
        try: async () => {
          await Fs.rm(staging, { recursive: true, force: true })
          await writeAll(staging, files)
          await Fs.rm(root, { recursive: true, force: true })
          await Fs.rename(staging, root)
        },
        catch: failure(path, "cannot unpack it")
      })
    }
    const text = existing ?? (yield* Effect.tryPromise({
      try: () => Fs.readFile(manifestPath, "utf8"),
      catch: failure(path, "cannot read its manifest")
    }))
    const manifest = yield* McpBundle.parseManifest(text, `${path}: manifest.json`)
    return { directory: root, manifest }
  })

/**
 * The stdio entry of a bundle: unpacked, its `user_config` answered, its references expanded.
 *
 * @since 0.2.0
 * @category constructors
 */
export const loadEntry = (path: string, options: Options = {}): Effect.Effect<McpConfig.StdioEntry, ConfigError> =>
  Effect.gen(function*() {
    const { directory, manifest } = yield* unpack(path, options.directory, options.maxUnpackedBytes)
    const values = manifest.userConfig.length === 0 || options.userConfig === undefined
      ? {}
      : yield* options.userConfig(manifest.userConfig, manifest)
    return yield* McpBundle.toEntry(manifest, { directory, home: Os.homedir(), platform: process.platform, values })
  })

/**
 * The server configuration of a bundle (see {@link loadEntry}).
 *
 * @since 0.2.0
 * @category constructors
 */
export const load = (
  path: string,
  options: Options = {}
): Effect.Effect<ServerConfig<Target.Requirements>, ConfigError> =>
  Effect.flatMap(loadEntry(path, options), (entry) => McpConfig.toConfig(entry))
