/**
 * How to reach one server: its name, its transport and per-server options.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type { Reconnect } from "./ConnectionState.js"
import type { ConfigError } from "./McpError.js"
import type { ToolPin } from "./ToolPin.js"
import type { TransportFactory } from "./Transport.js"

/**
 * The kind of a transport: one of the built-in ones, or a custom transport's own name. Shown in
 * logs and listings; the HTTP kinds also turn on what only HTTP has (telemetry attributes,
 * expired sessions). `string & {}` keeps a custom kind assignable while editors still offer the
 * built-in ones.
 *
 * @since 0.1.0
 * @category models
 */
export type TransportKind = "stdio" | "streamable_http" | "http" | "sse" | "memory" | (string & {})

/**
 * @since 0.1.0
 * @category models
 */
export interface ServerConfig<R = never> {
  /** Name used to route calls (`{ server }`) and in errors. */
  readonly name: string
  /** Transport kind: `stdio`, `streamable_http`, `http`, `sse`, `memory`, or a custom transport's. */
  readonly kind: TransportKind
  readonly transport: TransportFactory<R>
  /** Default timeout of every request to this server (default 30 seconds). */
  readonly readTimeout?: Duration.DurationInput | undefined
  /** Overrides the client's `protocol` for this server. */
  readonly protocol?: "auto" | "modern" | "legacy" | undefined
  /** Overrides the client's `discoverTimeout` for this server. */
  readonly discoverTimeout?: Duration.DurationInput | undefined
  /**
   * Names the server in an `EraCache` (`protocol: "auto"` only): the normalized command line or
   * URL (`EraCache.stdioKey`, `EraCache.urlKey`), set by `Stdio.config` and the HTTP configs.
   * Without it the era is not remembered.
   */
  readonly eraCacheKey?: string | undefined
  /** Sends `ping` at this interval while connected. */
  readonly keepAlive?: Duration.DurationInput | undefined
  /**
   * Transports tried in order when opening with `transport` fails (auto-detection: Streamable
   * HTTP, then HTTP+SSE, then plain HTTP). The one that worked is kept for reopening.
   */
  readonly fallbacks?:
    | ReadonlyArray<{ readonly kind: TransportKind; readonly transport: TransportFactory<R> }>
    | undefined
  /**
   * Supervised reconnect: after the session died, re-open it in the background (first attempt
   * at once, then after each delay of the schedule; `ServerConnection.state` shows each
   * attempt) instead of on the next request. A `Schedule` fed with each attempt's error, or a
   * `ReconnectPolicy` (exponential backoff).
   */
  readonly reconnect?: Reconnect | undefined
  /**
   * Whether requests to this server carry the W3C trace context in `params._meta` while tracing
   * (overrides the client's `propagateTraceContext`): `false` for a server not to be trusted
   * with trace ids.
   */
  readonly propagateTraceContext?: boolean | undefined
  /**
   * Why this configuration cannot work, set by the constructor that was given it (a URL that is
   * not http(s), or a malformed one): `ServerConnection.make` and `McpClient.make` fail with it
   * at once, before anything is spawned or sent, and it is never retried.
   *
   * @since 0.2.0
   */
  readonly configError?: ConfigError | undefined
  /**
   * The settings this configuration was made from, as one line with credentials masked (keys
   * naming tokens, secrets, passwords, API keys, authorization or cookies; user info and such
   * query parameters in URLs): what a connection logs at DEBUG when it starts. Computed only
   * then.
   *
   * @since 0.2.0
   */
  readonly describe?: (() => string) | undefined
  /**
   * Which of the server's tools the client shows and calls: `include` and `exclude` lists of
   * names with `*` globs (`"github_*"`). A filtered tool is in no list (nor `findTool`, the AI
   * bridges or the LLM formats), and calling it fails with `ToolNotFoundError`, nothing sent.
   * Config files set it from `includeTools`, `excludeTools` and `disabledTools`.
   *
   * @since 0.2.0
   */
  readonly tools?: ToolFilter | undefined
  /**
   * Most characters of this server's tool results (see `ResultLimits`): over the client's,
   * under a call's own. Config files set it from `maxResultChars`.
   *
   * @since 0.2.0
   */
  readonly maxResultChars?: number | undefined
  /**
   * Most UTF-8 bytes of this server's tool results (see `ResultLimits`). Config files set it
   * from `maxResultBytes`.
   *
   * @since 0.2.0
   */
  readonly maxResultBytes?: number | undefined
  /** What happens to a result over a limit: cut (`"truncate"`), or cut and kept (`"handle"`). @since 0.2.0 */
  readonly overflow?: "truncate" | "handle" | undefined
  /**
   * Drift pinning: the fingerprint each tool's definition must keep (`ToolPin`), checked each
   * time the tools are listed (again after `notifications/tools/list_changed`). A tool that
   * changed, a new unpinned one and a pinned one gone are warnings in `warn` mode (default);
   * `strict` shows and calls only the tools that match their pin (`ToolPinMismatchError`, nothing
   * sent). `ToolPin.applyLock` sets it from a lock file.
   *
   * @since 0.2.0
   */
  readonly pin?: ToolPin | undefined
  /**
   * Shows this server's tools under a prefix and the client's `toolNameSeparator` (default
   * `__`): `"gh"` gives `gh__create_issue`, `true` the server's name. Calls by the shown name
   * reach this server with the tool's own name. Config files: `toolPrefix`.
   *
   * @since 0.2.0
   */
  readonly toolPrefix?: string | true | undefined
  /**
   * Renames tools: the server's name of a tool → the name shown (before `toolPrefix`). Calls by
   * the shown name send the server's name. Config files: `toolNames`.
   *
   * @since 0.2.0
   */
  readonly toolNames?: Readonly<Record<string, string>> | undefined
}

/**
 * Allow and deny lists of tool names, with `*` globs; a name must match an `include` pattern
 * (when there are any) and no `exclude` pattern.
 *
 * @since 0.2.0
 * @category models
 */
export interface ToolFilter {
  readonly include?: ReadonlyArray<string> | undefined
  readonly exclude?: ReadonlyArray<string> | undefined
}
