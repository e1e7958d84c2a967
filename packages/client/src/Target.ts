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

const isUrl = (s: string) => /^https?:\/\//i.test(s)

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
 * auto-detection, `stdio://…`, argv arrays and command lines → stdio.
 *
 * @since 0.1.0
 * @category parsing
 */
export const detect = (target: Target): Detected => {
  if (typeof target !== "string") return { transport: "stdio", argv: target }
  const trimmed = target.trim()
  if (trimmed.toLowerCase().startsWith("stdio://")) {
    return { transport: "stdio", argv: splitCommandLine(trimmed.slice("stdio://".length)) }
  }
  if (isUrl(trimmed)) {
    const path = new URL(trimmed).pathname.replace(/\/+$/, "")
    if (path.endsWith("/sse")) return { transport: "sse", url: trimmed }
    if (path.endsWith("/mcp")) return { transport: "streamable_http", url: trimmed }
    return { transport: "auto", url: trimmed }
  }
  return { transport: "stdio", argv: splitCommandLine(trimmed) }
}

/**
 * Whether an array given to `connect` lists several targets (URLs, `stdio://…`, command lines
 * with spaces, or nested argv arrays) rather than being one argv array.
 *
 * @since 0.1.0
 * @category parsing
 */
export const isTargetList = (targets: ReadonlyArray<unknown>): boolean =>
  targets.length > 0 && targets.every((t) =>
    Array.isArray(t) ||
    (typeof t === "string" && (isUrl(t.trim()) || t.trim().toLowerCase().startsWith("stdio://") || /\s/.test(t.trim())))
  )

const baseName = (command: string) => command.split(/[\\/]/).pop() || command

/**
 * What a target's server configuration needs from the platform.
 *
 * @since 0.1.0
 * @category models
 */
export type Requirements = ChildProcessSpawner | HttpClient.HttpClient

/**
 * The server configuration for a target. A URL that is neither `/sse` nor `/mcp` tries
 * Streamable HTTP, then HTTP+SSE, then plain HTTP when it connects; `transport` forces one.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toConfig = (
  target: Target,
  options: TargetOptions = {}
): Effect.Effect<ServerConfig<Requirements>, ConfigError> =>
  Effect.suspend((): Effect.Effect<ServerConfig<Requirements>, ConfigError> => {
    const detected = detect(target)
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
        name: options.name ?? baseName(command),
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
  if (!isUrl(target.trim())) return target
  const url = new URL(target.trim())
  return `${url.protocol}//${url.host}${url.pathname}`
}
