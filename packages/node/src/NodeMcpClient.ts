/**
 * Node layers of the client: {@link McpClientLive} reads the servers from the configuration
 * file it finds ({@link findConfig}), {@link fromFile} and {@link fromHost} from the file named,
 * {@link layer} takes them as options. All provide the Node platform (process spawning, file
 * system).
 *
 * @since 0.1.0
 */
import type * as NodeContext from "@effect/platform-node/NodeContext"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as HttpClient from "@effect/platform/HttpClient"
import type { ChildProcessSpawner } from "@mcp-effect/client/ChildProcess"
import type * as JsonSchema from "@mcp-effect/client/JsonSchema"
import * as McpClient from "@mcp-effect/client/McpClient"
import type * as McpConfig from "@mcp-effect/client/McpConfig"
import { ConfigError } from "@mcp-effect/client/McpError"
import type { ConnectError } from "@mcp-effect/client/McpError"
import * as ToolPin from "@mcp-effect/client/ToolPin"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "node:path"
import * as LazyHttpClient from "./internal/lazyHttpClient.js"
import * as LazyMcpConfig from "./internal/lazyMcpConfig.js"
import * as LazyOAuth from "./internal/lazyOAuth.js"
import * as internalPlatform from "./internal/platform.js"
import * as NodeChildProcess from "./NodeChildProcess.js"
import * as NodeJsonSchema from "./NodeJsonSchema.js"
import type { NetworkOptions } from "./UndiciHttpClient.js"

/**
 * What the client needs from Node: file system (configuration files), server processes, an
 * HTTP client (`UndiciHttpClient`: undici's dispatcher API, far cheaper per request than `fetch`
 * or the platform's `Readable`-based undici client; through the proxy of `HTTP_PROXY`,
 * `HTTPS_PROXY`, `NO_PROXY`, read when the layer is built) and a JSON Schema validator with a
 * hard deadline.
 *
 * @since 0.1.0
 * @category layers
 */
export const platform: Layer.Layer<
  NodeContext.NodeContext | ChildProcessSpawner | HttpClient.HttpClient | JsonSchema.JsonSchema
> = Layer.mergeAll(
  // Loaded when the layer is built, not when this module is imported.
  Layer.unwrapEffect(
    Effect.map(Effect.promise(() => import("@effect/platform-node/NodeContext")), (NodeContext) => NodeContext.layer)
  ),
  NodeChildProcess.layer,
  // undici is loaded with the first HTTP request, not with the layer.
  LazyHttpClient.layer("scoped"),
  // Output schemas are validated in a worker with a hard deadline: a hostile pattern cannot
  // hang the host. One worker serves every client of the process.
  NodeJsonSchema.layerShared()
)

/**
 * `MCP_CONFIG`, else `./mcp.json`: what {@link McpClientLive} read before it also looked for
 * `./.mcp.json`.
 *
 * @since 0.1.0
 * @category config
 * @deprecated Use {@link findConfig}, which follows the lookup order of `McpConfig.find`.
 */
export const configPath: Config.Config<string> = Config.string("MCP_CONFIG").pipe(Config.withDefault("mcp.json"))

/**
 * The configuration file to read: `MCP_CONFIG` (a path, or a host name such as `claude`), else
 * `./.mcp.json`, else `./mcp.json`; a `ConfigError` when there is none.
 *
 * @since 0.1.0
 * @category config
 */
export const findConfig: Effect.Effect<string, ConfigError, FileSystem.FileSystem> = Effect.flatMap(
  Effect.flatMap(LazyMcpConfig.load, (McpConfig) => McpConfig.find()),
  Option.match({
    onNone: () =>
      Effect.fail(
        new ConfigError({ message: "no configuration file: set MCP_CONFIG, or create ./.mcp.json or ./mcp.json" })
      ),
    onSome: Effect.succeed
  })
)

/**
 * How {@link fromFile} parses the file at `path`: entries with `oauth` get
 * `NodeOAuth.fromSettings`, a relative `storage` being relative to the file.
 *
 * @since 0.1.0
 * @category config
 */
export const parseOptions = (path: string): McpConfig.ParseOptions<HttpClient.HttpClient> => ({
  oauth: (entry) =>
    Effect.flatMap(
      Effect.promise(LazyOAuth.load),
      (NodeOAuth) => NodeOAuth.fromSettings(entry.url, entry.settings, { baseDir: Path.dirname(path) })
    )
})

/**
 * A client for the servers of the configuration file at `path`. Entries with `oauth` get
 * `NodeOAuth.fromSettings` (browser flow, tokens in a 0600 file; a relative `storage` path is
 * relative to the file).
 *
 * @since 0.1.0
 * @category layers
 */
export const fromFile = (
  path: string,
  options?: FileOptions
): Layer.Layer<McpClient.McpClient, ConnectError | ConfigError> => {
  const { pin, ...clientOptions } = options ?? {}
  return Layer.unwrapScoped(
    Effect.map(
      Effect.zip(
        Effect.flatMap(LazyMcpConfig.load, (McpConfig) => McpConfig.load(path, parseOptions(path))),
        lockOf(pin)
      ),
      ([servers, lock]) =>
        McpClient.layer({
          ...clientOptions,
          servers: lock === undefined ? servers : ToolPin.applyLock(servers, lock, pin?.mode)
        })
    )
  ).pipe(Layer.provide(platform))
}

const lockOf = (
  pin: FileOptions["pin"]
): Effect.Effect<ToolPin.LockFile | undefined, ConfigError, FileSystem.FileSystem> =>
  pin === undefined
    ? Effect.succeed(undefined)
    : typeof pin.lock === "string"
    ? ToolPin.readLock(pin.lock)
    : Effect.succeed(pin.lock)

/**
 * The options of a client for a configuration file: the client's, and drift pinning from a
 * lock file (`ServerConfig.pin` of each server the lock names; `lock` is the lock or its path).
 *
 * @since 0.2.0
 * @category models
 */
export interface FileOptions extends Omit<McpClient.Options, "servers"> {
  readonly pin?: {
    readonly lock: ToolPin.LockFile | string
    readonly mode?: "warn" | "strict" | undefined
  } | undefined
}

/**
 * A client for servers given as options, with the Node platform provided. HTTP goes through
 * `proxy` when given, else the environment's (`HTTP_PROXY`, `HTTPS_PROXY`, `NO_PROXY`), and
 * trusts the CAs of `ca` beside Node's (see `UndiciHttpClient.NetworkOptions`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: McpClient.Options<ChildProcessSpawner | HttpClient.HttpClient> & NetworkOptions
): Layer.Layer<McpClient.McpClient, ConnectError | ConfigError> => {
  const { ca, proxy, proxyEnv, ...client } = options
  // What a client given its servers needs, built with it in one layer: no file system, terminal
  // or command executor (building those costs more than the rest of a connect). HTTP goes through
  // undici's global dispatcher, as `connect` does: a client built after another reuses its
  // connections (idle ones close by themselves after a few seconds and never hold the process).
  return internalPlatform.clientLayer(client, "global", undefined, { ca, proxy, proxyEnv })
}

/**
 * A client for the servers of a host's configuration file (see `McpConfig.hostPaths`):
 * `fromHost("claude")` reads Claude Desktop's.
 *
 * @since 0.1.0
 * @category layers
 */
export const fromHost = (
  host: McpConfig.Host,
  options?: FileOptions
): Layer.Layer<McpClient.McpClient, ConnectError | ConfigError> =>
  Layer.unwrapEffect(
    Effect.map(Effect.flatMap(LazyMcpConfig.load, (McpConfig) => McpConfig.findHost(host)), (path) =>
      fromFile(path, options))
  ).pipe(
    Layer.provide(platform)
  )

/**
 * The client for the servers of the configuration file {@link findConfig} finds: `MCP_CONFIG`,
 * else `./.mcp.json`, else `./mcp.json`.
 *
 * @since 0.1.0
 * @category layers
 */
export const McpClientLive: Layer.Layer<McpClient.McpClient, ConnectError | ConfigError> = Layer.unwrapEffect(
  Effect.map(findConfig, (path) => fromFile(path))
).pipe(Layer.provide(platform))
