/**
 * The Promise facade's core, shared by every platform's `connect` (Node's in
 * `@mcp-effect/node/Connect`, the browser's in `Browser`): a client whose methods return Promises
 * and reject with the same error classes as the Effect API, over a client layer the platform
 * builds, or over a `ManagedRuntime` of yours.
 *
 * @since 0.2.0
 */
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import * as internalClient from "./internal/facade/client.js"
import * as internalConfigs from "./internal/facade/configs.js"
import type { Client, FacadeOptions } from "./internal/facade/types.js"
import type { McpAuth } from "./McpAuth.js"
import type * as McpClient from "./McpClient.js"
import type { ConfigError } from "./McpError.js"
import type { ServerConfig } from "./ServerConfig.js"
import type * as Target from "./Target.js"

export type {
  Client,
  FacadeOptions,
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
 * Connects to `servers` through the client layer `layerOf` builds from their `McpClient` options
 * (the facade's options applied), and resolves once every one of them is connected; rejects with
 * the layer's error itself. `close()` closes the connections. For a platform's own `connect`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const open: <R, E>(
  servers: ReadonlyArray<ServerConfig<R>>,
  options: FacadeOptions,
  layerOf: (clientOptions: McpClient.Options<R>) => Layer.Layer<McpClient.McpClient, E>
) => Promise<Client> = internalClient.open

/**
 * The Promise client over a `ManagedRuntime` of yours that provides `McpClient`: plain async
 * code in an Effect application calls the same connections. Rejects with the layer's error
 * itself when the runtime fails to build. `close()` removes this client's listeners only: the
 * connections belong to the runtime (`runtime.dispose()` closes them).
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromRuntime: <E>(
  runtime: ManagedRuntime.ManagedRuntime<McpClient.McpClient, E>
) => Promise<Client> = internalClient.fromRuntime

/**
 * The server configurations of `connect`'s targets (one, or a list that may name its servers)
 * under its options; `authFor` gives a URL target its credentials (a platform's OAuth).
 * `options.name` with several targets, or `protocol: "modern"` with an HTTP+SSE target, is a
 * `ConfigError`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const configsFor: <O extends FacadeOptions>(
  targets: Target.Target | Target.Named | ReadonlyArray<Target.Target | Target.Named>,
  options: O,
  authFor: (target: Target.Target, options: O) => Effect.Effect<McpAuth | undefined, ConfigError>
) => Effect.Effect<Array<ServerConfig<Target.Requirements>>, ConfigError> = internalConfigs.configsFor
