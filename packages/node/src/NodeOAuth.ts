/**
 * OAuth for Node hosts: a Promise-friendly constructor of `OAuth.make` on undici, a file storage
 * for tokens and registrations (created with 0600 permissions), and the OAuth of configuration
 * entries, `connect({ oauth })` and the CLI's `--oauth` ({@link fromSettings}).
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as McpConfig from "@mcp-effect/client/McpConfig"
import { AuthError, ConfigError } from "@mcp-effect/client/McpError"
import * as OAuth from "@mcp-effect/client/OAuth"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import * as Os from "node:os"
import * as Path from "node:path"
import { configDirectory } from "./internal/configDirectory.js"
import * as FileStorage from "./internal/fileStorage.js"
import * as LazyHttpClient from "./internal/lazyHttpClient.js"
import * as LazyMcpConfig from "./internal/lazyMcpConfig.js"
import * as NodeOAuthBrowser from "./NodeOAuthBrowser.js"
import type { NetworkOptions } from "./UndiciHttpClient.js"

/**
 * The options of `OAuth.make` with a Promise-returning interactive step, and the network
 * options of its requests (`proxy`, `ca`; default: the proxy environment).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends Omit<OAuth.Options, "authorize">, NetworkOptions {
  /** Open `authorizationUrl`, resolve with the callback URL the authorization server redirected to. */
  readonly authorize?: ((authorizationUrl: URL) => Promise<URL>) | undefined
}

// The MCP traffic's client on the process's shared dispatcher: the same proxy, the same CAs.
// undici is loaded with the first OAuth request.
const httpLayer = (network: NetworkOptions | undefined) => LazyHttpClient.layerWith("global", network ?? {})

/**
 * `OAuth.make` for Promise code: the result goes into `connect(url, { auth })`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeOAuth = (options: Options): Promise<OAuth.OAuthClient> => {
  const { authorize, ca, proxy, proxyEnv, ...rest } = options
  return Effect.runPromise(
    OAuth.make({
      ...rest,
      ...(authorize === undefined ? {} : {
        authorize: (url: URL) =>
          Effect.tryPromise({
            try: () => authorize(url),
            catch: (e) =>
              new AuthError({
                server: options.serverUrl,
                reason: "authorization",
                message: e instanceof Error ? e.message : String(e)
              })
          })
      })
    }).pipe(Effect.provide(httpLayer({ ca, proxy, proxyEnv })))
  )
}

/**
 * Finishes an authorization that failed with `AuthorizationRequiredError`: `callbackUrl` is where
 * the authorization server redirected the user. Retry the MCP request afterwards.
 *
 * @since 0.1.0
 * @category utils
 */
export const completeAuthorization = (auth: OAuth.OAuthClient, callbackUrl: URL | string): Promise<void> =>
  Effect.runPromise(auth.complete(typeof callbackUrl === "string" ? new URL(callbackUrl) : callbackUrl))

/**
 * Options of {@link makeFileStorage}.
 *
 * @since 0.1.0
 * @category models
 */
export interface FileStorageOptions {
  /**
   * Encrypts the file at rest (AES-256-GCM): 32 bytes, or their base64. The host keeps the key
   * (a keychain, a secret manager). A plain file is read and sealed by the next write; a sealed
   * file read without its key, or with another, fails with `OAuthStorageError`.
   */
  readonly encryptionKey?: Uint8Array | string | undefined
  /** How long a refresh may hold the lock before other processes take it over (default 60 seconds). */
  readonly lockTtl?: Duration.DurationInput | undefined
  /** How long a process waits for the lock before its refresh fails (default 90 seconds). */
  readonly lockWait?: Duration.DurationInput | undefined
}

/**
 * An `OAuthStorage` kept in one JSON file, readable by its owner only (0600). Writes replace the
 * file atomically. Its `withLock` is a lock file beside it (`<file>.lock`, naming its owner and
 * expiry), so the processes sharing the file refresh a token once; a lock whose holder died or
 * expired is taken over.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeFileStorage = (file: string, options: FileStorageOptions = {}): OAuth.OAuthStorage =>
  FileStorage.make(file, options)

/**
 * The file storage as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFileStorage = (file: string, options?: FileStorageOptions): Layer.Layer<OAuth.OAuthStorage> =>
  Layer.sync(OAuth.OAuthStorage, () => makeFileStorage(file, options))

/**
 * OAuth settings as configuration entries, `connect({ oauth })` and the CLI take them (see
 * `McpConfig.OAuthSettings`), plus what only code can give: a storage backend, an opener or
 * printer for the authorization URL, a warning sink.
 *
 * @since 0.1.0
 * @category models
 */
export interface Settings extends Omit<McpConfig.OAuthSettings, "storage" | "openBrowser"> {
  /** A token file, `false` (memory only) or a storage backend; default {@link defaultStoragePath}. */
  readonly storage?: string | false | OAuth.OAuthStorage | undefined
  /**
   * Encrypts the token file at rest (see {@link FileStorageOptions}); default: the base64 key in
   * the environment variable `MCP_EFFECT_OAUTH_KEY`, if set.
   */
  readonly encryptionKey?: Uint8Array | string | undefined
  /** `false`: print the URL only; a function replaces the opener (default: the system browser). */
  readonly openBrowser?: boolean | ((url: string) => void) | undefined
  /** Where the authorization URL is printed (default: the `Console`'s error stream). */
  readonly printUrl?: ((url: string) => void) | undefined
  /** Warnings of the flows (dynamic registration, a changed authorization server); default: logged. */
  readonly onWarning?: ((message: string) => void) | undefined
}

/**
 * Where tokens and registrations are kept by default: `mcp-effect/oauth.json` under the user's
 * configuration directory (`$XDG_CONFIG_HOME`, else `~/.config`; `%APPDATA%` on Windows,
 * `~/Library/Application Support` on macOS).
 *
 * @since 0.1.0
 * @category utils
 */
export const defaultStoragePath = (): string => Path.join(configDirectory(), "mcp-effect", "oauth.json")

const storageOf = (settings: Settings, baseDir: string | undefined): OAuth.OAuthStorage | undefined => {
  const storage = settings.storage
  if (storage === false) return undefined
  if (typeof storage === "object") return storage
  const encryptionKey = settings.encryptionKey ?? (process.env.MCP_EFFECT_OAUTH_KEY || undefined)
  if (storage === undefined) return makeFileStorage(defaultStoragePath(), { encryptionKey })
  const expanded = storage === "~" || storage.startsWith("~/") ? Path.join(Os.homedir(), storage.slice(1)) : storage
  return makeFileStorage(Path.resolve(baseDir ?? process.cwd(), expanded), { encryptionKey })
}

const isLoopbackHttp = (uri: string): boolean => {
  try {
    const url = new URL(uri)
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1")
    return url.protocol === "http:" && (host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host))
  } catch {
    return false
  }
}

/**
 * The OAuth of one MCP server from settings (`true`: the interactive browser flow with defaults):
 * tokens in a 0600 file under the user's configuration directory, a loopback callback server on
 * a free port that listens only while a flow waits for the user, the URL printed and opened.
 * A relative `storage` path is resolved against `baseDir` (a configuration file's directory).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromSettings = (
  serverUrl: string,
  settings: true | Settings,
  options: { readonly baseDir?: string | undefined } = {}
): Effect.Effect<OAuth.OAuthClient, ConfigError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const s: Settings = settings === true ? {} : settings
    const runtime = yield* Effect.runtime<never>()
    const { encryptionKey: _key, openBrowser, printUrl, storage: _storage, ...portable } = s
    const base = yield* Effect.flatMap(LazyMcpConfig.load, (McpConfig) => McpConfig.oauthOptions(serverUrl, portable))
    const interactive = s.interactive !== false && s.grant !== "client_credentials"
    if (interactive && s.redirectUri !== undefined && !isLoopbackHttp(s.redirectUri)) {
      return yield* new ConfigError({
        message:
          `oauth for ${serverUrl}: the browser flow listens on a loopback redirectUri (http://127.0.0.1:<port>/…), not ${s.redirectUri}; ` +
          "set interactive: false to complete authorizations yourself"
      })
    }
    return yield* OAuth.make({
      ...base,
      storage: storageOf(s, options.baseDir),
      // Warnings go to the host's logger unless the settings say otherwise.
      onWarning: s.onWarning ?? ((message) => Runtime.runFork(runtime)(Effect.logWarning(message))),
      interactive: interactive
        ? NodeOAuthBrowser.make({
          redirectUri: s.redirectUri ?? "http://127.0.0.1:0/callback",
          timeout: s.timeout === undefined ? undefined : s.timeout * 1000,
          openBrowser,
          printUrl
        })
        : undefined
    })
  })

/**
 * {@link fromSettings} on undici's global dispatcher (which outlives any scope), for Promise
 * code such as `connect({ oauth })`; through `network`'s proxy, else the environment's.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromSettingsGlobal = (
  serverUrl: string,
  settings: true | Settings,
  options: { readonly baseDir?: string | undefined; readonly network?: NetworkOptions | undefined } = {}
): Effect.Effect<OAuth.OAuthClient, ConfigError> =>
  Effect.provide(fromSettings(serverUrl, settings, options), httpLayer(options.network))
