/**
 * Which servers a command talks to: `--target`s, the configuration file (`--config`, else the
 * default lookup), else the embedded demo server; `--server` and `server.tool` narrow them.
 *
 * @internal
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as McpBundle from "@mcp-effect/client/McpBundle"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as McpConfig from "@mcp-effect/client/McpConfig"
import * as McpError from "@mcp-effect/client/McpError"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import * as Target from "@mcp-effect/client/Target"
import * as NodeMcpBundle from "@mcp-effect/node/NodeMcpBundle"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as NodeOAuth from "@mcp-effect/node/NodeOAuth"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Demo from "../Demo.js"
import type { Placed } from "./diagnostics.js"
import { UsageError } from "./errors.js"
import type { Mode } from "./output.js"

/**
 * @internal OAuth for the URL targets (`--oauth`, `--oauth-storage`, `--no-browser`).
 * @inline
 */
export interface OAuthOptions {
  readonly storage?: string | undefined
  readonly openBrowser?: boolean | undefined
}

/** @internal A server a command may talk to. */
export interface Server extends Placed {
  readonly config: ServerConfig<Target.Requirements>
  /** `"disabled": true` in the file: listed, connected only when named. */
  readonly disabled: boolean
}

/** @internal */
export interface Servers {
  readonly servers: ReadonlyArray<Server>
  /** The configuration file read, if any. */
  readonly file: string | undefined
  /** No target and no configuration: the embedded demo server. */
  readonly demo: boolean
}

/** @internal What `--env` and `--inherit-env` add to every stdio server's environment. */
export interface Environment {
  readonly env: Record<string, string>
  readonly inheritEnv: boolean
}

/** @internal What the command line says about servers. */
export interface Selection {
  readonly targets: ReadonlyArray<string>
  readonly config: string | undefined
  readonly oauth: OAuthOptions | undefined
  readonly environment?: Environment | undefined
  /** `--user-config KEY=VALUE` words: the answers to an `.mcpb` bundle's questions. */
  readonly userConfig?: ReadonlyArray<string> | undefined
  /** Whether to look for a configuration file when none is named (`demo` does not). */
  readonly lookup: boolean
}

/** A URL without its query and credentials: configuration files put tokens in both. */
const redact = (url: string): string => {
  if (!URL.canParse(url)) return url
  const parsed = new URL(url)
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
}

/**
 * `--target NAME=TARGET`: a word of letters, digits, `.`, `_` and `-` before the first `=`
 * names the server. A URL (`:` before any `=`) or a command line (a space before it) never
 * starts so; `stdio://A=B …` runs a program whose name holds a `=`.
 *
 * @internal
 */
export const parseTarget = (word: string): Target.Named | string => {
  const named = /^([\w.-]+)=(.*)$/s.exec(word)
  return named === null ? word : { name: named[1]!, target: named[2]! }
}

const targetServer = (target: Target.Named, oauth: OAuthOptions | undefined, environment: Environment | undefined) =>
  Effect.gen(function*() {
    const detected = yield* Target.parse(target.target)
    const auth = oauth === undefined || detected.transport === "stdio"
      ? undefined
      : yield* NodeOAuth.fromSettings(detected.url, { storage: oauth.storage, openBrowser: oauth.openBrowser })
    const config = yield* Target.toConfig(target.target, {
      name: target.name,
      auth,
      env: environment?.env,
      inheritEnv: environment?.inheritEnv
    })
    const where = detected.transport === "stdio" ? detected.argv.join(" ") : redact(detected.url)
    return { name: target.name, kind: config.kind, where, config, disabled: false } satisfies Server
  })

/** The targets with their names; a name given twice is a usage error. */
const named = (words: ReadonlyArray<string>, taken: Iterable<string>) =>
  Effect.gen(function*() {
    const parsed = words.map(parseTarget)
    for (const target of parsed) {
      if (typeof target !== "string" && target.target === "") {
        return yield* new UsageError({ message: `--target ${target.name}=: the target is missing` })
      }
    }
    return yield* Effect.mapError(Target.nameAll(parsed, taken), (error) => new UsageError({ message: error.message }))
  })

/**
 * Server configurations for targets (`NAME=TARGET` names one; other names are derived and made
 * unique: `server-everything`, `server-everything-2`, …).
 *
 * @internal
 */
export const fromTargets = (
  targets: ReadonlyArray<string>,
  oauth: OAuthOptions | undefined,
  taken: Iterable<string> = [],
  environment?: Environment | undefined
): Effect.Effect<ReadonlyArray<Server>, McpError.ConfigError | UsageError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const list = yield* named(targets, taken)
    if (oauth !== undefined && !list.some((t) => Target.detect(t.target).transport !== "stdio")) {
      return yield* new UsageError({ message: "--oauth applies to URL targets (--target https://…)" })
    }
    return yield* Effect.forEach(list, (target) => targetServer(target, oauth, environment))
  })

/** An entry with `--env` over its own `env`, and `--inherit-env` over its `inheritEnv`. */
const withEnvironment = (entry: McpConfig.Entry, environment: Environment | undefined): McpConfig.Entry =>
  entry.type !== "stdio" || environment === undefined
    ? entry
    : {
      ...entry,
      env: { ...entry.env, ...environment.env },
      inheritEnv: environment.inheritEnv || entry.inheritEnv
    }

const entryServer = (path: string, environment: Environment | undefined) => (entry: McpConfig.Entry) =>
  Effect.map(
    McpConfig.toConfig(withEnvironment(entry, environment), NodeMcpClient.parseOptions(path)),
    (config): Server => ({
      name: entry.name,
      kind: config.kind,
      where: entry.type === "stdio" ? [entry.command, ...entry.args].join(" ") : redact(entry.url),
      config,
      disabled: entry.disabled
    })
  )

/** `--user-config` words as a bundle's answers, each read as its field's type says. */
const answers = (words: ReadonlyArray<string>) => (fields: ReadonlyArray<McpBundle.UserConfigField>) =>
  Effect.gen(function*() {
    const given = new Map<string, Array<string>>()
    for (const word of words) {
      const separator = word.indexOf("=")
      if (separator <= 0) {
        return yield* new McpError.ConfigError({ message: `--user-config expects KEY=VALUE, got "${word}"` })
      }
      const key = word.slice(0, separator)
      given.set(key, [...(given.get(key) ?? []), word.slice(separator + 1)])
    }
    const values: Record<string, McpBundle.UserConfigValue> = {}
    for (const field of fields) {
      const written = given.get(field.key)
      if (written === undefined) continue
      const last = written[written.length - 1]!
      values[field.key] = field.multiple
        ? written
        : field.type === "number"
        ? Number(last)
        : field.type === "boolean"
        ? (last === "true" ? true : last === "false" ? false : last)
        : last
    }
    return values
  })

const fromBundle = (path: string, environment: Environment | undefined, userConfig: ReadonlyArray<string>) =>
  Effect.flatMap(
    NodeMcpBundle.loadEntry(path, { userConfig: answers(userConfig) }),
    (entry) => Effect.map(entryServer(path, environment)(entry), (server) => [server])
  )

const fromFile = (path: string, environment: Environment | undefined, userConfig: ReadonlyArray<string> = []) =>
  /\.mcpb$/i.test(path) ?
    fromBundle(path, environment, userConfig) :
    Effect.flatMap(McpConfig.loadEntries(path), (entries) =>
      Effect.mapError(
        Effect.forEach(entries, entryServer(path, environment)),
        (error) => new McpError.ConfigError({ message: `${path}: ${error.message}` })
      ))

const demoServers = Effect.map(Demo.server, (config): Servers => ({
  servers: [{ name: config.name, kind: config.kind, where: "embedded", config, disabled: false }],
  file: undefined,
  demo: true
}))

const configFile = (selection: Selection) =>
  selection.config !== undefined
    ? Effect.map(McpConfig.resolve(selection.config), Option.some)
    : selection.lookup && selection.targets.length === 0
    ? McpConfig.find()
    : Effect.succeed(Option.none())

/**
 * The servers of a command line: the configuration file's (named, or found when there is no
 * target), then the targets'; the embedded demo server when there is neither.
 *
 * @internal
 */
export const resolve = (
  selection: Selection
): Effect.Effect<
  Servers,
  McpError.ConfigError | UsageError,
  HttpClient.HttpClient | FileSystem.FileSystem
> =>
  Effect.gen(function*() {
    const file = Option.getOrUndefined(yield* configFile(selection))
    const configured = file === undefined ? [] : yield* fromFile(file, selection.environment, selection.userConfig)
    const targeted = yield* fromTargets(
      selection.targets,
      selection.oauth,
      configured.map((server) => server.name),
      selection.environment
    )
    if (file === undefined && targeted.length === 0) return yield* demoServers
    return { servers: [...configured, ...targeted], file, demo: false }
  })

/** @internal What stderr says when the demo server stands in. */
export const demoNote =
  "mcp-effect: no server configured (no --target, --config, $MCP_CONFIG, ./.mcp.json or ./mcp.json); " +
  "using the embedded demo server"

/**
 * The servers to connect: the one `--server` names (disabled or not), else every enabled one.
 *
 * @internal
 */
export const select = (
  servers: Servers,
  name: string | undefined
): Effect.Effect<ReadonlyArray<Server>, McpError.ServerNotFoundError> => {
  if (name === undefined) return Effect.succeed(servers.servers.filter((server) => !server.disabled))
  const named = servers.servers.filter((server) => server.name === name)
  return named.length > 0
    ? Effect.succeed(named)
    : Effect.fail(new McpError.ServerNotFoundError({ server: name, known: servers.servers.map((s) => s.name) }))
}

/**
 * `server.tool` → the server and the tool, when the part before a dot names a server (the
 * longest such name wins); else the whole word is the tool's name.
 *
 * @internal
 */
export const splitTool = (
  word: string,
  servers: Servers
): { readonly server: string | undefined; readonly tool: string } => {
  const matches = servers.servers.filter((s) => word.startsWith(`${s.name}.`) && word.length > s.name.length + 1)
  const longest = matches.sort((a, b) => b.name.length - a.name.length)[0]
  return longest === undefined
    ? { server: undefined, tool: word }
    : { server: longest.name, tool: word.slice(longest.name.length + 1) }
}

/** "connecting to …" while the servers start, on a terminal only; erased once connected. */
const announcing = <A, E, R>(mode: Mode, names: ReadonlyArray<string>, effect: Effect.Effect<A, E, R>) =>
  mode.stderrAnsi && process.stderr.isTTY
    ? Effect.acquireUseRelease(
      Effect.sync(() => process.stderr.write(`connecting to ${names.join(", ")}…`)),
      () => effect,
      () => Effect.sync(() => process.stderr.write("\r\u001b[2K"))
    )
    : effect

/**
 * A client of the servers, in the current scope.
 *
 * @internal
 */
export const connect = (
  mode: Mode,
  servers: ReadonlyArray<Server>
): Effect.Effect<McpClient.Service, McpError.ConnectError | McpError.ConfigError, Scope.Scope | Target.Requirements> =>
  announcing(mode, servers.map((s) => s.name), McpClient.make({ servers: servers.map((s) => s.config) }))

/** @internal Says, on stderr, that the demo server stands in. */
export const noteDemo = (servers: Servers): Effect.Effect<void> => servers.demo ? Console.error(demoNote) : Effect.void
