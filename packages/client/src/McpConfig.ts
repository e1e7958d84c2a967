/**
 * The hosts' configuration files. Two shapes are read:
 *
 * ```json
 * { "mcpServers": { "files": { "command": "npx", "args": ["-y", "…"] } } }
 * { "servers": { "api": { "type": "http", "url": "https://api.example.com/mcp" } } }
 * ```
 *
 * `mcpServers` is Claude Desktop's, Cursor's, Windsurf's and Claude Code's (`.mcp.json`);
 * `servers` is VS Code's (`mcp.json`, or `mcp.servers` in its settings). The other hosts'
 * documents are read into that shape: Codex's `config.toml` (`[mcp_servers.<name>]`),
 * OpenCode's `opencode.json(c)` (`mcp`, `local`/`remote`), Gemini CLI's `settings.json` (where
 * `url` is HTTP+SSE and `httpUrl` Streamable HTTP), Zed's `context_servers`, and the MCP
 * registry's `server.json` (a package launched by its registry type, or a remote; a required
 * variable it declares and the environment lacks is reported as missing). An entry's `type` is
 * `stdio`, `http` (Streamable HTTP, also spelled `streamable-http`, `streamable_http`,
 * `streamableHttp`), `sse` or `plain_http` (JSON-RPC over plain POSTs); without one, `command`
 * means stdio and `url` Streamable HTTP. `${VAR}`, `${env:VAR}` and `${VAR:-default}` are
 * expanded in `command`, `args`, `env`, `cwd`, `url` and `headers`. Comments and trailing
 * commas are allowed. Every problem is reported, one line each, in one `ConfigError`.
 *
 * HTTP entries may carry `"oauth": true` (the interactive browser flow with defaults) or an
 * object of {@link OAuthSettings}; the host turns it into an `McpAuth` (on Node,
 * `NodeMcpClient.fromFile` does).
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Http from "./Http.js"
import * as Formats from "./internal/config/formats.js"
import * as Runtime from "./internal/host.js"
import * as internal from "./internal/mcpConfig.js"
import { httpUrlError } from "./internal/url.js"
import type { McpAuth } from "./McpAuth.js"
import { ConfigError } from "./McpError.js"
import type * as OAuth from "./OAuth.js"
import type { ServerConfig, ToolFilter } from "./ServerConfig.js"
import * as Sse from "./Sse.js"
import * as Stdio from "./Stdio.js"
import * as StreamableHttp from "./StreamableHttp.js"
import type { Requirements } from "./Target.js"

/**
 * A stdio entry, validated and expanded.
 *
 * @since 0.1.0
 * @category models
 */
export interface StdioEntry {
  readonly name: string
  readonly type: "stdio"
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly cwd?: string | undefined
  /** `"inheritEnv": true`: the process gets the host's whole environment, not the safe default. */
  readonly inheritEnv?: boolean | undefined
  /** Seconds. */
  readonly readTimeout?: number | undefined
  /** `"disabled": true`: listed, never connected. */
  readonly disabled: boolean
  /**
   * The tool filter from `includeTools` (allowed names) and `excludeTools` / `disabledTools`
   * (denied names), `*` globs. Added in 0.2.0.
   */
  readonly tools?: ToolFilter | undefined
  /** `maxResultChars` (`ServerConfig.maxResultChars`). Added in 0.2.0. */
  readonly maxResultChars?: number | undefined
  /** `maxResultBytes` (`ServerConfig.maxResultBytes`). Added in 0.2.0. */
  readonly maxResultBytes?: number | undefined
  /** `toolPrefix`: the tools shown as `prefix__name` (`true`: the server's name); see `ServerConfig.toolPrefix`. Added in 0.2.0. */
  readonly toolPrefix?: string | true | undefined
  /** `toolNames`: a tool's own name → the name shown; see `ServerConfig.toolNames`. Added in 0.2.0. */
  readonly toolNames?: Readonly<Record<string, string>> | undefined
}

/**
 * An HTTP entry, validated and expanded. `streamable_http` falls back to HTTP+SSE on the same
 * URL when the server does not speak Streamable HTTP.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpEntry {
  readonly name: string
  readonly type: "streamable_http" | "sse" | "plain_http"
  readonly url: string
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Seconds. */
  readonly readTimeout?: number | undefined
  readonly retries?: number | undefined
  /** `plain_http` only: the path requests are POSTed to. */
  readonly endpoint?: string | undefined
  readonly oauth?: OAuthSettings | undefined
  readonly disabled: boolean
  /**
   * The tool filter from `includeTools` (allowed names) and `excludeTools` / `disabledTools`
   * (denied names), `*` globs. Added in 0.2.0.
   */
  readonly tools?: ToolFilter | undefined
  /** `maxResultChars` (`ServerConfig.maxResultChars`). Added in 0.2.0. */
  readonly maxResultChars?: number | undefined
  /** `maxResultBytes` (`ServerConfig.maxResultBytes`). Added in 0.2.0. */
  readonly maxResultBytes?: number | undefined
  /** `toolPrefix`: the tools shown as `prefix__name` (`true`: the server's name); see `ServerConfig.toolPrefix`. Added in 0.2.0. */
  readonly toolPrefix?: string | true | undefined
  /** `toolNames`: a tool's own name → the name shown; see `ServerConfig.toolNames`. Added in 0.2.0. */
  readonly toolNames?: Readonly<Record<string, string>> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export type Entry = StdioEntry | HttpEntry

/**
 * The `oauth` member of an HTTP entry (every field optional; `"oauth": true` is `{}`).
 *
 * @since 0.1.0
 * @category models
 */
export interface OAuthSettings {
  /** `authorization_code` (default: a person signs in) or `client_credentials` (machine to machine). */
  readonly grant?: "authorization_code" | "client_credentials" | undefined
  /** A client registered out of band; with `authorization_code` it needs `issuer`. */
  readonly clientId?: string | undefined
  readonly clientSecret?: string | undefined
  /** The authorization server `clientId` belongs to (its `issuer`). */
  readonly issuer?: string | undefined
  readonly tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "none" | undefined
  /** Scopes (space-separated) to ask for when the server's challenge names none. */
  readonly scope?: string | undefined
  /** Redirect URI; a loopback one is where the callback server listens (default `http://127.0.0.1:<free port>/callback`). */
  readonly redirectUri?: string | undefined
  /** HTTPS URL of the host's Client ID Metadata Document. */
  readonly clientIdMetadataUrl?: string | undefined
  /** `client_name` of a dynamic registration. */
  readonly clientName?: string | undefined
  /** Ask for `offline_access` when the authorization server lists it (default true). */
  readonly offlineAccess?: boolean | undefined
  /** Token file (relative to the configuration file); `false` keeps tokens in memory. Default: the host's. */
  readonly storage?: string | false | undefined
  /** `false`: no browser flow; a flow fails with `AuthorizationRequiredError` carrying the URL. */
  readonly interactive?: boolean | undefined
  /** `false`: print the authorization URL without opening a browser (default true). */
  readonly openBrowser?: boolean | undefined
  /** Seconds to wait for the browser's callback (default 300). */
  readonly timeout?: number | undefined
  /** Seconds before its expiry a token is refreshed (default 60). */
  readonly refreshSkew?: number | undefined
}

/**
 * An HTTP entry with an `oauth` member, for the host to turn into an `McpAuth`.
 *
 * @since 0.1.0
 * @category models
 */
export interface OAuthEntry {
  /** The entry's name. */
  readonly name: string
  /** The MCP endpoint (the protected resource). */
  readonly url: string
  readonly settings: OAuthSettings
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ParseOptions<R = never> {
  /** Builds the `auth` of entries with an `oauth` member; without it, such an entry is a `ConfigError`. */
  readonly oauth?: ((entry: OAuthEntry) => Effect.Effect<McpAuth, ConfigError, R>) | undefined
  /** Names the document in messages (`load` passes the file's path). */
  readonly source?: string | undefined
  /** What `${workspaceFolder}` means (`load`: the file's folder, or the project above `.vscode`). */
  readonly workspaceFolder?: string | undefined
  /** What `${userHome}` means (default: `HOME`, else `USERPROFILE`). */
  readonly home?: string | undefined
}

/**
 * The platform-independent part of `OAuth.Options` for some settings (the host adds storage and
 * the interactive step). Fails with `ConfigError` for settings that cannot work.
 *
 * @since 0.1.0
 * @category constructors
 */
export const oauthOptions = (
  serverUrl: string,
  settings: OAuthSettings
): Effect.Effect<OAuth.Options, ConfigError> => {
  const refuse = (message: string) => Effect.fail(new ConfigError({ message: `oauth for ${serverUrl}: ${message}` }))
  const base: OAuth.Options = {
    serverUrl,
    redirectUri: settings.redirectUri,
    scope: settings.scope,
    clientIdMetadataUrl: settings.clientIdMetadataUrl,
    offlineAccess: settings.offlineAccess,
    refreshSkew: settings.refreshSkew === undefined ? undefined : Duration.seconds(settings.refreshSkew),
    clientMetadata: settings.clientName === undefined ? undefined : { clientName: settings.clientName }
  }
  if (settings.clientSecret !== undefined && settings.clientId === undefined) {
    return refuse("clientSecret needs clientId")
  }
  if (settings.grant === "client_credentials") {
    if (settings.clientId === undefined) return refuse("the client_credentials grant needs clientId")
    if (settings.tokenEndpointAuthMethod === "none") return refuse("the client_credentials grant needs a secret")
    return Effect.succeed({
      ...base,
      grant: {
        _tag: "ClientCredentials",
        clientId: settings.clientId,
        clientSecret: settings.clientSecret,
        tokenEndpointAuthMethod: settings.tokenEndpointAuthMethod,
        issuer: settings.issuer,
        scope: settings.scope
      }
    })
  }
  if (settings.clientId === undefined) return Effect.succeed(base)
  // Credentials are bound to the authorization server that issued them (never shown to another).
  if (settings.issuer === undefined) return refuse("clientId needs the issuer it was registered with")
  return Effect.succeed({
    ...base,
    preRegistered: {
      clientId: settings.clientId,
      clientSecret: settings.clientSecret,
      issuer: settings.issuer,
      tokenEndpointAuthMethod: settings.tokenEndpointAuthMethod
    }
  })
}

const optionalEnv = (name: string): Effect.Effect<string | undefined> =>
  Config.option(Config.string(name)).pipe(
    Effect.map(Option.getOrUndefined),
    Effect.orElseSucceed(() => undefined)
  )

/** The environment variables the document refers to, read through the `ConfigProvider`. */
const variablesOf = (document: unknown, options: ParseOptions<unknown>) =>
  Effect.gen(function*() {
    const values = new Map<string, string | undefined>()
    for (const name of internal.referencedVariables(document)) values.set(name, yield* optionalEnv(name))
    const home = options.home ?? (yield* optionalEnv("HOME")) ?? (yield* optionalEnv("USERPROFILE"))
    return { env: (name: string) => values.get(name), home, workspaceFolder: options.workspaceFolder }
  })

const prefixed = (source: string | undefined, message: string): string =>
  source === undefined ? message : `${source}: ${message}`

/**
 * The entries of a parsed document (any host's: see the module's description; a Gemini CLI
 * document is told by its `source` path), validated and with their `${…}` references expanded,
 * in file order (disabled ones included). Unknown fields and VS Code's `inputs` are logged as
 * warnings; every problem is one line of the `ConfigError`'s message.
 *
 * @since 0.1.0
 * @category parsing
 */
export const decode = (
  document: unknown,
  options: Omit<ParseOptions, "oauth"> = {}
): Effect.Effect<ReadonlyArray<Entry>, ConfigError> =>
  Effect.gen(function*() {
    const common = Formats.normalize(document, options.source)
    const decoded = internal.decode(common.document, yield* variablesOf(common.document, options))
    for (const warning of [...common.warnings, ...decoded.warnings]) {
      yield* Effect.logWarning(prefixed(options.source, warning))
    }
    if (decoded.problems.length > 0) {
      return yield* new ConfigError({
        message: decoded.problems.map((problem) => prefixed(options.source, problem)).join("\n")
      })
    }
    return decoded.entries
  })

const authOf = <R>(options: ParseOptions<R>, entry: HttpEntry, settings: OAuthSettings) => {
  if (options.oauth === undefined) {
    return Effect.fail(
      new ConfigError({
        message: `server "${entry.name}": oauth needs a host that provides it (NodeMcpClient.fromFile)`
      })
    )
  }
  const hook = options.oauth
  // Settings that cannot work fail here, whatever the host does with them.
  return Effect.zipRight(
    Effect.mapError(
      oauthOptions(entry.url, settings),
      (e) => new ConfigError({ message: `server "${entry.name}": ${e.message}` })
    ),
    hook({ name: entry.name, url: entry.url, settings })
  )
}

const withTools = <R>(config: ServerConfig<R>, entry: Entry): ServerConfig<R> =>
  Object.assign(
    config,
    entry.tools === undefined ? {} : { tools: entry.tools },
    entry.maxResultChars === undefined ? {} : { maxResultChars: entry.maxResultChars },
    entry.maxResultBytes === undefined ? {} : { maxResultBytes: entry.maxResultBytes },
    entry.toolPrefix === undefined ? {} : { toolPrefix: entry.toolPrefix },
    entry.toolNames === undefined ? {} : { toolNames: entry.toolNames }
  )

const seconds = (value: number | undefined) => value === undefined ? undefined : value * 1000

const httpConfig = (entry: HttpEntry, auth: McpAuth | undefined): ServerConfig<Requirements> => {
  const common = {
    name: entry.name,
    headers: entry.headers,
    retries: entry.retries,
    readTimeout: seconds(entry.readTimeout),
    auth
  }
  switch (entry.type) {
    case "sse":
      return Sse.config({ ...common, url: entry.url })
    case "plain_http":
      return Http.config({ ...common, baseUrl: entry.url, endpoint: entry.endpoint })
    case "streamable_http":
      // The spec's backwards compatibility: a server that refuses the POST may be HTTP+SSE.
      return {
        ...StreamableHttp.config({ ...common, url: entry.url }),
        fallbacks: [Sse.config({ ...common, url: entry.url })]
      }
  }
}

/**
 * The server configuration of an entry (`oauth` goes through `options.oauth`). An HTTP entry
 * whose `url` is not http(s) or is malformed fails with `ConfigError` (`decode` never gives one).
 *
 * @since 0.1.0
 * @category parsing
 */
export const toConfig = <R = never>(
  entry: Entry,
  options: ParseOptions<R> = {}
): Effect.Effect<ServerConfig<Requirements>, ConfigError, R> => {
  if (entry.type === "stdio") {
    return Effect.succeed(withTools(
      Stdio.config({
        name: entry.name,
        command: entry.command,
        args: entry.args,
        env: entry.env,
        inheritEnv: entry.inheritEnv,
        cwd: entry.cwd,
        readTimeout: seconds(entry.readTimeout)
      }),
      entry
    ))
  }
  const refused = (error: ConfigError) =>
    Effect.fail(new ConfigError({ message: `server "${entry.name}": ${error.message}` }))
  // Checked before the OAuth hook sees the URL; a plain_http `endpoint` is checked by `Http.config`.
  const urlError = httpUrlError(entry.url)
  if (urlError !== undefined) return refused(urlError)
  const auth = entry.oauth === undefined ? Effect.succeed(undefined) : authOf(options, entry, entry.oauth)
  return Effect.flatMap(auth, (auth) => {
    const config = withTools(httpConfig(entry, auth), entry)
    return config.configError === undefined ? Effect.succeed(config) : refused(config.configError)
  })
}

/**
 * The server configurations of a parsed document, in file order, disabled entries left out.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = <R = never>(
  document: unknown,
  options: ParseOptions<R> = {}
): Effect.Effect<ReadonlyArray<ServerConfig<Requirements>>, ConfigError, R> =>
  Effect.flatMap(decode(document, options), (entries) =>
    Effect.forEach(
      entries.filter((entry) => !entry.disabled),
      (entry) =>
        Effect.mapError(
          toConfig(entry, options),
          (error) => new ConfigError({ message: prefixed(options.source, error.message) })
        )
    ))

/** A missing bare word (`--config claud`) may have been meant as a host's name. */
const hostHint = (path: string): string => {
  if (/[\\/.]/.test(path)) return ""
  const host = internal.misspelled(path, hosts)
  return host === undefined ? ` (nor a host: ${hosts.join(", ")})` : ` (did you mean ${host}?)`
}

/**
 * Reads a configuration file: TOML when its name ends in `.toml` (Codex), else JSON (comments
 * and trailing commas allowed). The document is returned as written. A missing file
 * whose name is a bare word close to a host's name says which host was probably meant.
 *
 * @since 0.1.0
 * @category parsing
 */
export const read = (path: string): Effect.Effect<unknown, ConfigError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((error) =>
        new ConfigError({
          message: error._tag === "SystemError" && error.reason === "NotFound"
            ? `${path}: no such file${hostHint(path)}`
            : `${path}: cannot read it (${error.message})`
        })
      )
    )
    return yield* Either.mapLeft(
      Formats.parse(path, text),
      (problem) => new ConfigError({ message: `${path}: ${problem}` })
    )
  })

/**
 * The entries of a configuration file (see {@link decode}).
 *
 * @since 0.1.0
 * @category parsing
 */
export const loadEntries = (
  path: string,
  options: Omit<ParseOptions, "oauth" | "source"> = {}
): Effect.Effect<ReadonlyArray<Entry>, ConfigError, FileSystem.FileSystem> =>
  Effect.flatMap(read(path), (document) => decode(document, fileOptions(path, options)))

const fileOptions = <O extends Omit<ParseOptions<unknown>, "source">>(path: string, options: O) => ({
  ...options,
  source: path,
  workspaceFolder: options.workspaceFolder ?? internal.workspaceFolderOf(path)
})

/**
 * Reads and parses a configuration file.
 *
 * @since 0.1.0
 * @category constructors
 */
export const load = <R = never>(
  path: string,
  options: Omit<ParseOptions<R>, "source"> = {}
): Effect.Effect<ReadonlyArray<ServerConfig<Requirements>>, ConfigError, FileSystem.FileSystem | R> =>
  Effect.flatMap(read(path), (document) => parse(document, fileOptions(path, options)))

/**
 * A host whose configuration file can be found by name.
 *
 * @since 0.1.0
 * @category models
 */
export type Host =
  | "claude"
  | "claude-code"
  | "cursor"
  | "vscode"
  | "windsurf"
  | "codex"
  | "opencode"
  | "gemini"
  | "zed"

/**
 * @since 0.1.0
 * @category models
 */
export const hosts: ReadonlyArray<Host> = [
  "claude",
  "claude-code",
  "cursor",
  "vscode",
  "windsurf",
  "codex",
  "opencode",
  "gemini",
  "zed"
]

/**
 * @since 0.1.0
 * @category guards
 */
export const isHost = (name: string): name is Host => (hosts as ReadonlyArray<string>).includes(name)

/**
 * What the hosts' file locations depend on.
 *
 * @since 0.1.0
 * @category models
 */
export interface HostEnvironment {
  /** `process.platform`: `darwin`, `win32`, `linux`, … */
  readonly platform: string
  readonly home: string
  /** `%APPDATA%` (Windows). */
  readonly appData?: string | undefined
  /** `$XDG_CONFIG_HOME` (Linux and other Unixes; OpenCode and Zed follow it on macOS too). */
  readonly xdgConfigHome?: string | undefined
  /** `$CODEX_HOME`: where Codex keeps `config.toml` (default `~/.codex`). */
  readonly codexHome?: string | undefined
}

/**
 * The host environment from the `ConfigProvider` (`HOME` or `USERPROFILE`, `APPDATA`,
 * `XDG_CONFIG_HOME`, `CODEX_HOME`) and the platform of the running process.
 *
 * @since 0.1.0
 * @category lookup
 */
export const hostEnvironment: Effect.Effect<HostEnvironment, ConfigError> = Effect.gen(function*() {
  const platform = Runtime.platform() ?? "linux"
  const home = (yield* optionalEnv("HOME")) ?? (yield* optionalEnv("USERPROFILE"))
  if (home === undefined) return yield* new ConfigError({ message: "cannot find the home directory: HOME is not set" })
  const nonEmpty = (value: string | undefined) => value === "" ? undefined : value
  return {
    platform,
    home,
    appData: nonEmpty(yield* optionalEnv("APPDATA")),
    xdgConfigHome: nonEmpty(yield* optionalEnv("XDG_CONFIG_HOME")),
    codexHome: nonEmpty(yield* optionalEnv("CODEX_HOME"))
  }
})

/**
 * Where a host keeps its configuration, most specific first: the project's file (`.mcp.json`
 * for Claude Code, `.cursor/mcp.json`, `.vscode/mcp.json`), then the user's — Claude Desktop's
 * `claude_desktop_config.json` (`~/Library/Application Support/Claude` on macOS,
 * `%APPDATA%\Claude` on Windows, `~/.config/Claude` elsewhere), `~/.claude.json`,
 * `~/.cursor/mcp.json`, VS Code's user `mcp.json` then `settings.json` (in `Code/User` under
 * the same folders as Claude's), `~/.codeium/windsurf/mcp_config.json`; Codex's
 * `.codex/config.toml` then `~/.codex/config.toml` (`$CODEX_HOME`), OpenCode's
 * `opencode.json(c)` then `~/.config/opencode/opencode.json(c)`, Gemini CLI's
 * `.gemini/settings.json` then `~/.gemini/settings.json`, Zed's `.zed/settings.json` then
 * `~/.config/zed/settings.json` (`%APPDATA%\Zed\settings.json` on Windows). See docs/config.md.
 *
 * @since 0.1.0
 * @category lookup
 */
export const hostPaths: (host: Host, environment: HostEnvironment) => ReadonlyArray<string> = internal.hostPaths

const firstExisting = (paths: ReadonlyArray<string>) =>
  Effect.flatMap(
    FileSystem.FileSystem,
    (fs) => Effect.findFirst(paths, (path) => Effect.orElseSucceed(fs.exists(path), () => false))
  )

/**
 * The configuration file of a host: the first of {@link hostPaths} that exists.
 *
 * @since 0.1.0
 * @category lookup
 */
export const findHost = (
  host: Host,
  environment?: HostEnvironment | undefined
): Effect.Effect<string, ConfigError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const paths = internal.hostPaths(host, environment ?? (yield* hostEnvironment))
    const found = yield* firstExisting(paths)
    if (Option.isSome(found)) return found.value
    return yield* new ConfigError({
      message: `no ${internal.hostNames[host]} configuration found (looked in ${paths.join(", ")})`
    })
  })

/**
 * A file to read for a `--config`-like value: a host name ({@link findHost}) or a path.
 *
 * @since 0.1.0
 * @category lookup
 */
export const resolve = (
  value: string,
  environment?: HostEnvironment | undefined
): Effect.Effect<string, ConfigError, FileSystem.FileSystem> =>
  isHost(value) ? findHost(value, environment) : Effect.succeed(value)

/**
 * The files looked for when none is named, in order.
 *
 * @since 0.1.0
 * @category lookup
 */
export const defaultPaths: ReadonlyArray<string> = [".mcp.json", "mcp.json"]

/**
 * The configuration file to use when none is named: `MCP_CONFIG` (a path or a host name), else
 * the first of {@link defaultPaths} in the working directory that exists. Host locations are
 * only looked in when asked ({@link findHost}).
 *
 * @since 0.1.0
 * @category lookup
 */
export const find = (
  environment?: HostEnvironment | undefined
): Effect.Effect<Option.Option<string>, ConfigError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const named = yield* optionalEnv("MCP_CONFIG")
    if (named !== undefined && named !== "") return Option.some(yield* resolve(named, environment))
    return yield* firstExisting(defaultPaths)
  })

/**
 * The servers of a host's configuration file.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromHost = <R = never>(
  host: Host,
  options: Omit<ParseOptions<R>, "source"> & { readonly environment?: HostEnvironment | undefined } = {}
): Effect.Effect<ReadonlyArray<ServerConfig<Requirements>>, ConfigError, FileSystem.FileSystem | R> =>
  Effect.flatMap(findHost(host, options.environment), (path) => load(path, options))
