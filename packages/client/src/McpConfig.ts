/**
 * The `mcpServers` JSON file (the format Claude Desktop and most hosts use):
 *
 * ```json
 * { "mcpServers": { "files": { "type": "stdio", "command": "npx", "args": ["-y", "…"] } } }
 * ```
 *
 * HTTP entries may carry `"oauth": true` (the interactive browser flow with defaults) or an
 * object of {@link OAuthSettings}; the host turns it into an `McpAuth` (on Node,
 * `NodeMcpClient.fromFile` does).
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Http from "./Http.js"
import type { McpAuth } from "./McpAuth.js"
import { ConfigError } from "./McpError.js"
import type * as OAuth from "./OAuth.js"
import type { ServerConfig } from "./ServerConfig.js"
import * as Sse from "./Sse.js"
import * as Stdio from "./Stdio.js"
import * as StreamableHttp from "./StreamableHttp.js"
import type { Requirements } from "./Target.js"

const StdioEntry = Schema.Struct({
  type: Schema.optional(Schema.Literal("stdio")),
  command: Schema.String,
  args: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  cwd: Schema.optional(Schema.String),
  readTimeout: Schema.optional(Schema.Number)
})

const HttpEntry = Schema.Struct({
  type: Schema.Literal("streamable_http", "sse", "http"),
  url: Schema.String,
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  readTimeout: Schema.optional(Schema.Number),
  retries: Schema.optional(Schema.Number),
  endpoint: Schema.optional(Schema.String)
})

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
}

const OAuthEntry = Schema.Struct({
  grant: Schema.optional(Schema.Literal("authorization_code", "client_credentials")),
  clientId: Schema.optional(Schema.String),
  clientSecret: Schema.optional(Schema.String),
  issuer: Schema.optional(Schema.String),
  tokenEndpointAuthMethod: Schema.optional(Schema.Literal("client_secret_basic", "client_secret_post", "none")),
  scope: Schema.optional(Schema.String),
  redirectUri: Schema.optional(Schema.String),
  clientIdMetadataUrl: Schema.optional(Schema.String),
  clientName: Schema.optional(Schema.String),
  offlineAccess: Schema.optional(Schema.Boolean),
  storage: Schema.optional(Schema.Union(Schema.String, Schema.Literal(false))),
  interactive: Schema.optional(Schema.Boolean),
  openBrowser: Schema.optional(Schema.Boolean),
  timeout: Schema.optional(Schema.Positive)
}).annotations({ parseOptions: { onExcessProperty: "error" } })

const OAuthMember = Schema.Union(Schema.Boolean, OAuthEntry)

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

const File = Schema.Struct({
  mcpServers: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

/**
 * The server configurations of a parsed `mcpServers` document, in file order.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = <R = never>(
  document: unknown,
  options: ParseOptions<R> = {}
): Effect.Effect<ReadonlyArray<ServerConfig<Requirements>>, ConfigError, R> =>
  Effect.gen(function*() {
    const file = yield* Schema.decodeUnknown(File)(document).pipe(
      Effect.mapError(() => new ConfigError({ message: "the configuration has no \"mcpServers\" object" }))
    )
    const configs: Array<ServerConfig<Requirements>> = []
    for (const [name, entry] of Object.entries(file.mcpServers)) {
      const oauth = yield* oauthOf(name, entry)
      if (Schema.is(HttpEntry)(entry)) {
        const auth = oauth === undefined ? undefined : yield* authOf(options, name, entry, oauth)
        const common = {
          name,
          headers: entry.headers,
          retries: entry.retries,
          readTimeout: entry.readTimeout === undefined ? undefined : entry.readTimeout * 1000,
          auth
        }
        configs.push(
          entry.type === "sse"
            ? Sse.config({ ...common, url: entry.url })
            : entry.type === "http"
            ? Http.config({ ...common, baseUrl: entry.url, endpoint: entry.endpoint })
            : StreamableHttp.config({ ...common, url: entry.url })
        )
        continue
      }
      const stdio = yield* Schema.decodeUnknown(StdioEntry)(entry).pipe(
        Effect.mapError((error) => new ConfigError({ message: `server "${name}": ${error.message}` }))
      )
      if (oauth !== undefined) {
        return yield* new ConfigError({ message: `server "${name}": oauth applies to HTTP entries only` })
      }
      configs.push(Stdio.config({
        name,
        command: stdio.command,
        args: stdio.args,
        env: stdio.env,
        cwd: stdio.cwd,
        readTimeout: stdio.readTimeout === undefined ? undefined : stdio.readTimeout * 1000
      }))
    }
    return configs
  })

/** The entry's `oauth` member: `undefined` when absent or `false`. */
const oauthOf = (name: string, entry: unknown): Effect.Effect<OAuthSettings | undefined, ConfigError> => {
  if (typeof entry !== "object" || entry === null || !("oauth" in entry)) return Effect.succeed(undefined)
  return Schema.decodeUnknown(OAuthMember)(entry.oauth).pipe(
    Effect.mapError((error) => new ConfigError({ message: `server "${name}": oauth: ${error.message}` })),
    Effect.map((member) => member === false ? undefined : member === true ? {} : member)
  )
}

const authOf = <R>(
  options: ParseOptions<R>,
  name: string,
  entry: { readonly url: string; readonly headers?: Readonly<Record<string, string>> | undefined },
  settings: OAuthSettings
): Effect.Effect<McpAuth, ConfigError, R> => {
  if (options.oauth === undefined) {
    return Effect.fail(
      new ConfigError({ message: `server "${name}": oauth needs a host that provides it (NodeMcpClient.fromFile)` })
    )
  }
  if (Object.keys(entry.headers ?? {}).some((header) => header.toLowerCase() === "authorization")) {
    return Effect.fail(
      new ConfigError({ message: `server "${name}": oauth and an Authorization header exclude each other` })
    )
  }
  const hook = options.oauth
  // Settings that cannot work fail here, whatever the host does with them.
  return Effect.zipRight(
    Effect.mapError(
      oauthOptions(entry.url, settings),
      (e) => new ConfigError({ message: `server "${name}": ${e.message}` })
    ),
    hook({ name, url: entry.url, settings })
  )
}

/**
 * Reads and parses a configuration file.
 *
 * @since 0.1.0
 * @category constructors
 */
export const load = <R = never>(
  path: string,
  options: ParseOptions<R> = {}
): Effect.Effect<ReadonlyArray<ServerConfig<Requirements>>, ConfigError, FileSystem.FileSystem | R> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((error) => new ConfigError({ message: `cannot read ${path}: ${error.message}` }))
    )
    const document = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: () => new ConfigError({ message: `${path} is not valid JSON` })
    })
    return yield* parse(document, options)
  })
