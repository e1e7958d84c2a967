/**
 * The Node facade's options: the shared ones and what needs Node (network settings, processes,
 * files, OAuth's loopback flow). The other types are the client package's facade types.
 *
 * @internal
 */
import type * as CacheStore from "@mcp-effect/client/CacheStore"
import type { FacadeOptions } from "@mcp-effect/client/Facade"
import type * as ToolPin from "@mcp-effect/client/ToolPin"
import type * as NodeOAuth from "../../NodeOAuth.js"
import type { NetworkOptions } from "../../UndiciHttpClient.js"

export type {
  Client,
  Hidden,
  Logger,
  Promised,
  Reshaped,
  ServerHandle,
  Signal,
  StateListener,
  SubscriptionHandle,
  WithSignal
} from "@mcp-effect/client/Facade"

/**
 * The options of `connect`. `proxy`, `ca` and `proxyEnv` (see
 * `UndiciHttpClient.NetworkOptions`) apply to the HTTP servers and their OAuth requests alike.
 *
 * @since 0.1.0
 * @category models
 */
export interface ConnectOptions extends FacadeOptions, NetworkOptions {
  /**
   * Drift pinning (`ServerConfig.pin`) from a lock file: the lock itself, or the path of its
   * file (`mcp-lock.json`, as `mcp-effect tools --pin` writes it); each server gets its entry,
   * by name. `mode`: `"warn"` (default) or `"strict"`. Added in 0.2.0.
   */
  readonly pin?: {
    readonly lock: ToolPin.LockFile | string
    readonly mode?: "warn" | "strict" | undefined
  } | undefined
  readonly env?: Record<string, string> | undefined
  readonly cwd?: string | undefined
  /**
   * Where the era each server spoke is remembered, so that `protocol: "auto"` pays the
   * `server/discover` probe once per server (a legacy server silent on it costs the whole
   * `discoverTimeout`) and detects again when the remembered era fails: a file (default
   * `NodeEraCache.defaultPath()`, beside the OAuth tokens), or `false` to probe on every connect.
   */
  readonly eraCache?: string | false | undefined
  /**
   * Where cached lists and reads are shared with other clients (other `connect()` calls, other
   * processes): e.g. `RedisCacheStore.make(redis)` of `@mcp-effect/redis`. Default: each
   * connection caches in its own memory. See `CacheStore` in `@mcp-effect/client`.
   */
  readonly cacheStore?: CacheStore.Service | undefined
  /**
   * OAuth for the URL targets (stdio has none): `true` runs the browser flow with defaults, or
   * settings such as `clientId`, `scope`, `redirectUri`, `storage` (see `NodeOAuth.Settings`).
   * Tokens go to `NodeOAuth.defaultStoragePath()` unless `storage` says otherwise. Excludes `auth`.
   */
  readonly oauth?: true | NodeOAuth.Settings | undefined
}
