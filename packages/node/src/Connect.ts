/**
 * The Promise facade for plain async code: `connect(target | targets, options)` returns a
 * client whose methods return Promises and reject with the same error classes as the Effect
 * API, so `instanceof` works.
 *
 * @since 0.1.0
 */
import * as Facade from "@mcp-effect/client/Facade"
import * as internalRun from "@mcp-effect/client/internal/facade/run"
import type * as McpBundle from "@mcp-effect/client/McpBundle"
import type * as McpClient from "@mcp-effect/client/McpClient"
import { ConfigError } from "@mcp-effect/client/McpError"
import type * as Target from "@mcp-effect/client/Target"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import * as internalClient from "./internal/facade/client.js"
import * as internalConfigs from "./internal/facade/configs.js"
import type { Client, ConnectOptions } from "./internal/facade/types.js"
import * as LazyMcpConfig from "./internal/lazyMcpConfig.js"
import type * as NodeMcpBundleModule from "./NodeMcpBundle.js"
import * as NodeMcpClient from "./NodeMcpClient.js"

export type {
  Client,
  ConnectOptions,
  Hidden,
  Logger,
  Promised,
  Reshaped,
  ServerHandle,
  Signal,
  StateListener,
  SubscriptionHandle,
  WithSignal
} from "./internal/facade/types.js"

/**
 * The server configurations for one target or a list of them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const configsFor = internalConfigs.configsFor

/**
 * Connects to one server or several and resolves once every one of them is connected. A list
 * may name its servers (`[{ name: "files", target: "npx -y @modelcontextprotocol/server-filesystem ." }]`);
 * unnamed ones are named by `Target.defaultName`, with a suffix when two are equal
 * (`server-everything`, `server-everything-2`). A target
 * that names a URL of another scheme than http(s) (`ftp://…`, `ws://…`, `htps://…`) or a
 * malformed http(s) URL rejects with `ConfigError` before anything is started or sent.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = async (
  targets: Target.Target | Target.Named | ReadonlyArray<Target.Target | Target.Named>,
  options: ConnectOptions = {}
): Promise<Client> => internalClient.open(await internalRun.run(configsFor(targets, options)), options)

/**
 * The Promise client over a `ManagedRuntime` of yours that provides `McpClient` (for example
 * `ManagedRuntime.make(NodeMcpClient.layer(...))`): plain async code in an Effect application
 * calls the same connections at the facade's cost — `callTool` without a fiber where the
 * connection can, where `runtime.runPromise(client.callTool(…))` starts one per call. Rejects with
 * the layer's error itself when the runtime fails to build. `close()` removes this client's
 * listeners only: the connections belong to the runtime (`runtime.dispose()` closes them).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromRuntime: <E>(
  runtime: ManagedRuntime.ManagedRuntime<McpClient.McpClient, E>
) => Promise<Client> = Facade.fromRuntime

/**
 * The options of {@link connectFromConfig}: `connect`'s, but those the file says per server, and
 * what an `.mcpb` bundle needs.
 *
 * @since 0.2.0
 * @category models
 */
export interface ConnectFromConfigOptions extends
  Omit<
    ConnectOptions,
    keyof Target.TargetOptions | "name" | "env" | "cwd" | "oauth" | "transport" | "toolPrefix" | "toolNames"
  >
{
  /**
   * An `.mcpb` bundle's `user_config` answers: the values by key, or a function given the
   * bundle's questions (called only when it has some). Fields left out take their default; a
   * required one without either rejects with `ConfigError`.
   */
  readonly userConfig?:
    | Readonly<Record<string, McpBundle.UserConfigValue>>
    | ((
      fields: ReadonlyArray<McpBundle.UserConfigField>,
      manifest: McpBundle.Manifest
    ) =>
      | Readonly<Record<string, McpBundle.UserConfigValue>>
      | Promise<Readonly<Record<string, McpBundle.UserConfigValue>>>)
    | undefined
  /** Where an `.mcpb` bundle is unpacked (default `NodeMcpBundle.defaultDirectory()`). */
  readonly bundleDirectory?: string | undefined
}

const bundleOptions = (options: ConnectFromConfigOptions): NodeMcpBundleModule.Options => {
  const answers = options.userConfig
  return {
    directory: options.bundleDirectory,
    userConfig: answers === undefined ? undefined : (fields, manifest) =>
      typeof answers === "function"
        ? Effect.tryPromise({
          try: async () => answers(fields, manifest),
          catch: (error) =>
            error instanceof ConfigError ? error : new ConfigError({
              message: `userConfig: ${error instanceof Error ? error.message : String(error)}`
            })
        })
        : Effect.succeed(answers)
  }
}

/**
 * Connects to the servers of an `mcpServers` / `servers` configuration file, read by the same
 * loader as `NodeMcpClient.McpClientLive` (`McpConfig.load`): `path`, else the file
 * `NodeMcpClient.findConfig` finds (`MCP_CONFIG`, `./.mcp.json`, `./mcp.json`). The target
 * options (`transport`, `env`, `name`, `oauth`, `toolPrefix`, …) do not apply: the file says them
 * per server. An `.mcpb` bundle (0.2.0) is unpacked and its server launched, its `user_config`
 * answered by `options.userConfig` (see `NodeMcpBundle`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const connectFromConfig = async (
  path?: string,
  options: ConnectFromConfigOptions = {}
): Promise<Client> => {
  const network = internalConfigs.networkOf(options)
  // Loaded here: `connect` alone never pays for the file system layer (nor a bundle's unzip).
  const [NodeFileSystem, UndiciHttpClient] = await Promise.all([
    import("@effect/platform-node/NodeFileSystem"),
    import("./UndiciHttpClient.js")
  ])
  const fromFile = (file: string) =>
    /\.mcpb$/i.test(file)
      ? Effect.flatMap(
        Effect.promise(() => import("./NodeMcpBundle.js")),
        (NodeMcpBundle) => Effect.map(NodeMcpBundle.load(file, bundleOptions(options)), (config) => [config])
      )
      : Effect.flatMap(LazyMcpConfig.load, (McpConfig) => McpConfig.load(file, NodeMcpClient.parseOptions(file)))
  return internalClient.open(
    await internalRun.run(
      Effect.flatMap(path === undefined ? NodeMcpClient.findConfig : Effect.succeed(path), fromFile).pipe(
        Effect.provide(
          Layer.merge(NodeFileSystem.layer, UndiciHttpClient.layerWith({ ...network, dispatcher: "global" }))
        )
      )
    ),
    options
  )
}
