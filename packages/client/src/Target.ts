/**
 * Turns what a user types — a URL, a command line, `stdio://…`, an argv array — into a server
 * configuration, with the seed's detection table.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { ChildProcessSpawner } from "./ChildProcess.js"
import * as Http from "./Http.js"
import type { HttpOptions } from "./internal/http/http.js"
import * as TargetName from "./internal/targetName.js"
import * as Url from "./internal/url.js"
import { ConfigError } from "./McpError.js"
import type { ServerConfig } from "./ServerConfig.js"
import * as Sse from "./Sse.js"
import * as Stdio from "./Stdio.js"
import * as StreamableHttp from "./StreamableHttp.js"

/**
 * A URL, a command line, `stdio://command args`, or an argv array.
 *
 * @since 0.1.0
 * @category models
 */
export type Target = string | ReadonlyArray<string>

/**
 * A target with the name its server gets, for a list of targets
 * (`connect([{ name: "files", target: "npx -y @modelcontextprotocol/server-filesystem ." }])`).
 *
 * @since 0.2.0
 * @category models
 */
export interface Named {
  readonly name: string
  readonly target: Target
}

/**
 * Options shared by every target.
 *
 * @since 0.1.0
 * @category models
 */
export interface TargetOptions extends HttpOptions {
  readonly name?: string | undefined
  readonly readTimeout?: Duration.DurationInput | undefined
  readonly env?: Record<string, string> | undefined
  /** A stdio server gets the host's whole environment, not the safe default (see `Stdio.Options`). */
  readonly inheritEnv?: boolean | undefined
  readonly cwd?: string | undefined
  /** A stdio server's stderr: `log` (default), `inherit` or `ignore` (see `Stdio.Options`). */
  readonly stderr?: Stdio.Options["stderr"]
  /** Forces a transport instead of detecting one. */
  readonly transport?: "stdio" | "streamable_http" | "sse" | "http" | undefined
  /** Legacy SSE keep-alive interval. */
  readonly ping?: Duration.DurationInput | undefined
  /**
   * Streamable HTTP: the most long-lived streams to the server's origin (4 by default in
   * browsers; see `StreamableHttp.Options`). Added in 0.2.0.
   */
  readonly maxStreamsPerOrigin?: StreamableHttp.Options["maxStreamsPerOrigin"]
}

/**
 * The transport the detection table picks for a target.
 *
 * @since 0.1.0
 * @category models
 */
export type Detected =
  | { readonly transport: "stdio"; readonly argv: ReadonlyArray<string> }
  | { readonly transport: "sse" | "streamable_http" | "auto"; readonly url: string }

const isStdioUrl = (s: string) => s.toLowerCase().startsWith("stdio://")

/**
 * Splits a command line into words, honouring single quotes, double quotes and backslashes.
 *
 * @since 0.1.0
 * @category parsing
 */
export const splitCommandLine = (line: string): Array<string> => {
  const words: Array<string> = []
  let current = ""
  let started = false
  let quote: "'" | "\"" | undefined
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (quote !== undefined) {
      if (c === quote) quote = undefined
      else if (c === "\\" && quote === "\"" && i + 1 < line.length) current += line[++i]
      else current += c
    } else if (c === "'" || c === "\"") {
      quote = c
      started = true
    } else if (c === "\\" && i + 1 < line.length) {
      current += line[++i]
      started = true
    } else if (/\s/.test(c)) {
      if (started) words.push(current)
      current = ""
      started = false
    } else {
      current += c
      started = true
    }
  }
  if (started) words.push(current)
  return words
}

/**
 * Applies the detection table: `/sse` → legacy SSE, `/mcp` → Streamable HTTP, other URLs →
 * auto-detection, `stdio://…`, argv arrays and command lines → stdio. A string that starts with
 * a URL scheme (`word://`, or `http:`) is a URL, whatever its scheme: {@link parse} refuses the
 * ones the client cannot use.
 *
 * @since 0.1.0
 * @category parsing
 */
export const detect = (target: Target): Detected => {
  if (typeof target !== "string") return { transport: "stdio", argv: target }
  const trimmed = target.trim()
  if (isStdioUrl(trimmed)) {
    return { transport: "stdio", argv: splitCommandLine(trimmed.slice("stdio://".length)) }
  }
  if (Url.looksLikeUrl(trimmed)) {
    const path = Url.httpUrlProblem(trimmed) === undefined ? new URL(trimmed).pathname.replace(/\/+$/, "") : ""
    if (path.endsWith("/sse")) return { transport: "sse", url: trimmed }
    if (path.endsWith("/mcp")) return { transport: "streamable_http", url: trimmed }
    return { transport: "auto", url: trimmed }
  }
  return { transport: "stdio", argv: splitCommandLine(trimmed) }
}

/**
 * {@link detect}, refusing a URL the client cannot use: another scheme than http(s) (`ftp://…`,
 * `ws://…`, `htps://…` with a hint) or a malformed http(s) URL fails with `ConfigError`, so it
 * is neither run as a command nor sent to.
 *
 * @since 0.2.0
 * @category parsing
 */
export const parse = (target: Target): Effect.Effect<Detected, ConfigError> =>
  Effect.suspend(() => {
    const detected = detect(target)
    const error = detected.transport === "stdio" ? undefined : Url.httpUrlError(detected.url)
    return error === undefined ? Effect.succeed(detected) : Effect.fail(error)
  })

/**
 * Whether an array given to `connect` lists several targets (URLs, `stdio://…`, command lines
 * with spaces, nested argv arrays, or {@link Named} targets) rather than being one argv array.
 *
 * @since 0.1.0
 * @category parsing
 */
export const isTargetList = (targets: ReadonlyArray<unknown>): boolean =>
  targets.length > 0 && (targets.some(isNamed) || targets.every((t) =>
    Array.isArray(t) ||
    (typeof t === "string" && (Url.looksLikeUrl(t.trim()) || /\s/.test(t.trim())))
  ))

/**
 * Whether a value is a {@link Named} target.
 *
 * @since 0.2.0
 * @category parsing
 */
export const isNamed = (value: unknown): value is Named =>
  typeof value === "object" && value !== null && !Array.isArray(value) && "target" in value

/**
 * The name a target's server gets when none is given: a URL's host; for a command, what runs
 * behind its launchers (`npx -y @modelcontextprotocol/server-everything stdio` →
 * `server-everything`, `node ./dist/server.js` → `server`, `uvx mcp-server-fetch` →
 * `mcp-server-fetch`, `python -m mcp_server_git` → `mcp_server_git`), else the command's name.
 *
 * @since 0.2.0
 * @category parsing
 */
export const defaultName = (target: Target): string => {
  const detected = detect(target)
  return detected.transport === "stdio"
    ? TargetName.fromArgv(detected.argv)
    : StreamableHttp.defaultName(detected.url)
}

/**
 * Names a list of targets: a given name (`{ name, target }`) must be new; every other target
 * gets its {@link defaultName}, made unique with a suffix (`server-everything`,
 * `server-everything-2`, …). Names in `taken` (a configuration file's servers) count as used.
 *
 * @since 0.2.0
 * @category parsing
 */
export const nameAll = (
  targets: ReadonlyArray<Target | Named>,
  taken: Iterable<string> = []
): Effect.Effect<Array<Named>, ConfigError> =>
  Effect.suspend(() => {
    const used = new Set(taken)
    for (const entry of targets) {
      if (!isNamed(entry)) continue
      if (typeof entry.name !== "string" || entry.name === "") {
        return Effect.fail(new ConfigError({ message: "a named target's name must be a non-empty string" }))
      }
      if (used.has(entry.name)) {
        return Effect.fail(new ConfigError({ message: `two servers are named "${entry.name}"` }))
      }
      used.add(entry.name)
    }
    return Effect.succeed(targets.map((entry) => {
      if (isNamed(entry)) return entry
      const base = defaultName(entry)
      let name = base
      for (let n = 2; used.has(name); n++) name = `${base}-${n}`
      used.add(name)
      return { name, target: entry }
    }))
  })

/**
 * What a target's server configuration needs from the platform.
 *
 * @since 0.1.0
 * @category models
 */
export type Requirements = ChildProcessSpawner | HttpClient.HttpClient

/**
 * The server configuration for a target. A URL that is neither `/sse` nor `/mcp` tries
 * Streamable HTTP, then HTTP+SSE, then plain HTTP when it connects; `transport` forces one. A
 * URL the client cannot use fails with `ConfigError` (see {@link parse}).
 *
 * @since 0.1.0
 * @category constructors
 */
export const toConfig = (
  target: Target,
  options: TargetOptions = {}
): Effect.Effect<ServerConfig<Requirements>, ConfigError> =>
  Effect.flatMap(parse(target), (detected): Effect.Effect<ServerConfig<Requirements>, ConfigError> => {
    const forced = options.transport
    if (detected.transport === "stdio") {
      if (forced !== undefined && forced !== "stdio") {
        return Effect.fail(
          new ConfigError({ message: `transport ${forced} needs a URL (target: ${describe(target)})` })
        )
      }
      const [command, ...args] = detected.argv
      if (command === undefined || command === "") {
        return Effect.fail(new ConfigError({ message: "empty command line" }))
      }
      return Effect.succeed(Stdio.config({
        name: options.name ?? TargetName.fromArgv(detected.argv),
        command,
        args,
        env: options.env,
        inheritEnv: options.inheritEnv,
        cwd: options.cwd,
        readTimeout: options.readTimeout,
        stderr: options.stderr
      }))
    }
    if (forced === "stdio") {
      return Effect.fail(
        new ConfigError({ message: `a URL cannot use the stdio transport (target: ${describe(target)})` })
      )
    }
    const url = detected.url
    const name = options.name ?? StreamableHttp.defaultName(url)
    const streamable = () => StreamableHttp.config({ ...options, url, name })
    const sse = () => Sse.config({ ...options, url, name })
    const plain = () => Http.config({ ...options, baseUrl: url, name })
    switch (forced ?? detected.transport) {
      case "sse":
        return Effect.succeed(sse())
      case "streamable_http":
        return Effect.succeed(streamable())
      case "http":
        return Effect.succeed(plain())
      default:
        return Effect.succeed({ ...streamable(), fallbacks: [sse(), plain()] })
    }
  })

/** A target for messages: URLs lose their query and credentials. */
const describe = (target: Target): string => {
  if (typeof target !== "string") return target.join(" ")
  return Url.looksLikeUrl(target.trim()) ? Url.shown(target) : target
}
