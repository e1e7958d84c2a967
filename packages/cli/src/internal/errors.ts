/**
 * Failures for a person (one line, then the cause, a hint and a crashed server's stderr) and
 * for a program (`--json`), and the exit status of a run.
 *
 * @internal
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as McpError from "@mcp-effect/client/McpError"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type { Crash, Diagnostics } from "./diagnostics.js"
import * as format from "./format.js"
import { json, type Mode, red, stripAnsi } from "./output.js"

/**
 * The command line could not be used: `--args` that is not a JSON object, for instance.
 *
 * @internal
 */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/**
 * A tool answered with `isError: true`; its content was printed.
 *
 * @internal
 */
export class ToolResultError extends Data.TaggedError("ToolResultError")<{
  readonly tool: string
  readonly message: string
}> {}

/**
 * `servers` found servers that do not answer; the listing says which and why.
 *
 * @internal
 */
export class UnavailableError extends Data.TaggedError("UnavailableError")<{
  readonly servers: ReadonlyArray<string>
  readonly message: string
}> {}

/** Failures whose output (the document on stdout included) was printed already. */
const printed = (error: unknown) => error instanceof ToolResultError || error instanceof UnavailableError

/** @internal A failure, as `--json` shows it. */
export interface Described {
  readonly tag: string
  readonly message: string
  readonly server?: string | undefined
  readonly cause?: { readonly code?: string | undefined; readonly message: string } | undefined
  readonly hint?: string | undefined
  readonly stderr?:
    | { readonly command: string; readonly exit: string; readonly lines: ReadonlyArray<string> }
    | undefined
}

interface SystemCause {
  readonly code?: string | undefined
  readonly message: string
}

/** The innermost error with a `code` (undici wraps Node's socket errors, sometimes in an AggregateError). */
const systemCause = (value: unknown, depth = 0): SystemCause | undefined => {
  if (depth > 6 || typeof value !== "object" || value === null) return undefined
  const error = value as {
    readonly code?: unknown
    readonly message?: unknown
    readonly cause?: unknown
    readonly errors?: unknown
  }
  const message = typeof error.message === "string" ? error.message : ""
  if (typeof error.code === "string") return { code: error.code, message }
  const inner = systemCause(error.cause, depth + 1) ??
    (Array.isArray(error.errors) ? systemCause(error.errors[0], depth + 1) : undefined)
  return inner ?? (message === "" ? undefined : { message })
}

const NETWORK: Record<string, readonly [what: string, hint: string | undefined]> = {
  ECONNREFUSED: ["connection refused", "nothing listens there: is the server running, on this host and port?"],
  ENOTFOUND: ["host not found", "check the host name in the URL"],
  EAI_AGAIN: ["the host name could not be looked up", "check the network and DNS"],
  ECONNRESET: ["the connection was reset by the server", undefined],
  ETIMEDOUT: ["the connection timed out", "is a firewall or a proxy in the way?"],
  UND_ERR_CONNECT_TIMEOUT: ["the connection timed out", "is a firewall or a proxy in the way?"],
  EHOSTUNREACH: ["the host is unreachable", undefined],
  ENETUNREACH: ["the network is unreachable", undefined]
}

const TLS = /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|EPROTO$)/

const tlsHint = (code: string): string | undefined =>
  code === "ERR_SSL_WRONG_VERSION_NUMBER"
    ? "the server does not seem to speak TLS: try http://"
    : /SELF_SIGNED|UNABLE_TO_/.test(code)
    ? "the certificate is not trusted here: set NODE_EXTRA_CA_CERTS to the file of its CA"
    : code === "CERT_HAS_EXPIRED"
    ? "the server's certificate has expired"
    : code === "ERR_TLS_CERT_ALTNAME_INVALID"
    ? "the certificate does not name this host"
    : undefined

const firstLine = (text: string) => format.clean(text.split("\n")[0]!.slice(0, 200))

/** The cause's line and hint. OpenSSL's own messages (`…:error:0A00010B:SSL routines:…`) are left out. */
const explain = (cause: SystemCause): { readonly text: string; readonly hint: string | undefined } => {
  const message = firstLine(cause.message)
  const code = cause.code
  if (code !== undefined && NETWORK[code] !== undefined) {
    const [what, hint] = NETWORK[code]
    return { text: message === "" ? `${what} (${code})` : `${what}: ${message}`, hint }
  }
  if (code !== undefined && TLS.test(code)) {
    const detail = message === "" || message.includes(":error:") ? "" : `: ${message}`
    return { text: `TLS error${detail} (${code})`, hint: tlsHint(code) }
  }
  if (code !== undefined && !message.includes(code)) return { text: `${message} (${code})`, hint: undefined }
  return { text: message, hint: undefined }
}

const causeOf = (error: { readonly _tag: string; readonly message: string }, diagnostics: Diagnostics) => {
  if (error._tag !== "ConnectionError") return undefined
  const own = (error as McpError.ConnectionError).cause
  const cause = own ?? (/transport error/i.test(error.message) ? diagnostics.transportCause(error.message) : undefined)
  return cause === undefined ? undefined : systemCause(cause)
}

const is404 = (error: unknown): boolean =>
  (error instanceof McpError.ServerError && (error.data as { status?: unknown } | undefined)?.status === 404) ||
  (error instanceof McpError.ConnectionError && /\bHTTP 404\b/.test(error.message))

/** Where a 404'd server might be instead: its origin's `/mcp` and `/sse`, not the path it has. */
const endpointHint = (url: string | undefined): string => {
  const base =
    "nothing is served at this path: Streamable HTTP servers usually listen on /mcp, HTTP+SSE servers on /sse"
  if (url === undefined || !URL.canParse(url)) return base
  const { origin, pathname } = new URL(url)
  const others = ["/mcp", "/sse"].filter((path) => pathname.replace(/\/+$/, "") !== path).map((p) => origin + p)
  return `${base} (try ${others.join(" or ")})`
}

const whereOf = (error: unknown, diagnostics: Diagnostics): string | undefined => {
  const server = (error as { readonly server?: unknown }).server
  return diagnostics.servers().find((s) => s.name === server)?.where
}

const hintOf = (error: unknown, diagnostics: Diagnostics): string | undefined => {
  const where = whereOf(error, diagnostics)
  if (is404(error)) return endpointHint(where?.startsWith("http") === true ? where : undefined)
  if (error instanceof McpError.AuthError && error.status === 401) {
    return "the server wants authorization: run with --oauth, or give the entry an Authorization header"
  }
  if (error instanceof McpError.ConnectionError && error.message.startsWith("could not start")) {
    return "check the command: is it installed and on PATH?"
  }
  return undefined
}

const exitText = (crash: Crash) =>
  crash.status.code !== null ? `exited with code ${crash.status.code}` : `ended by ${crash.status.signal ?? "a signal"}`

/** The crash of the server's own process when known, else the last one. */
const stderrOf = (crashes: ReadonlyArray<Crash>, where: string | undefined): Described["stderr"] => {
  const crash = crashes.find((c) => c.command === where) ?? crashes[crashes.length - 1]
  return crash === undefined
    ? undefined
    : { command: format.clean(crash.command), exit: exitText(crash), lines: crash.stderr.map(format.clean) }
}

/**
 * A failure with what the run learned about it.
 *
 * @internal
 */
export const describe = (
  error: { readonly _tag: string; readonly message: string },
  diagnostics: Diagnostics
): Described => {
  const cause = causeOf(error, diagnostics)
  const explained = cause === undefined ? undefined : explain(cause)
  const server = (error as { readonly server?: unknown }).server
  return {
    tag: error._tag,
    message: format.clean(error.message),
    server: typeof server === "string" ? server : undefined,
    cause: cause === undefined ? undefined : { code: cause.code, message: firstLine(cause.message) },
    hint: hintOf(error, diagnostics) ?? explained?.hint,
    stderr: error._tag === "ConnectionError" ? stderrOf(diagnostics.crashes(), whereOf(error, diagnostics)) : undefined
  }
}

/**
 * The lines after a failure's first one: cause, hint, a crashed server's stderr.
 *
 * @internal
 */
export const details = (described: Described): ReadonlyArray<string> => {
  const lines: Array<string> = []
  if (described.cause !== undefined) {
    lines.push(`  cause: ${explain(described.cause).text}`)
  }
  if (described.hint !== undefined) lines.push(`  hint: ${described.hint}`)
  const stderr = described.stderr
  if (stderr !== undefined) {
    lines.push(
      stderr.lines.length === 0
        ? `  the server (${stderr.command}) ${stderr.exit} and wrote nothing to stderr`
        : `  the server (${stderr.command}) ${stderr.exit}; the last ${
          format.plural(stderr.lines.length, "line")
        } of its stderr:`,
      ...stderr.lines.map((line) => `    ${line}`)
    )
  }
  return lines
}

/** Each line of a message (a ConfigError has one per problem) as its own `error:` line. */
const errorLines = (mode: Mode, described: Described): ReadonlyArray<string> =>
  described.message.split("\n").map((line) => `${red(mode.stderrAnsi, "error:")} ${described.tag}: ${line}`)

const isOurs = (error: unknown): error is McpError.McpError | UsageError | ToolResultError | UnavailableError =>
  McpError.isMcpError(error) || error instanceof UsageError || printed(error)

/**
 * Prints a failure: `error: <_tag>: <message>` and its details on stderr for our errors (and,
 * with `--json`, the described error as the document on stdout), a hint for command-line
 * errors (@effect/cli already printed them), the full cause for anything else.
 *
 * @internal
 */
export const report = <E>(cause: Cause.Cause<E>, mode: Mode, diagnostics: Diagnostics): Effect.Effect<void> => {
  if (Cause.isInterruptedOnly(cause)) return Effect.void
  const failure = Option.getOrUndefined(Cause.failureOption(cause))
  if (isOurs(failure)) {
    const described = describe(failure, diagnostics)
    return Effect.zipRight(
      Console.error([...errorLines(mode, described), ...details(described)].join("\n")),
      mode.json && !printed(failure) ? Console.log(json({ error: described })) : Effect.void
    )
  }
  if (ValidationError.isValidationError(failure)) {
    const message = "error" in failure ? stripAnsi(HelpDoc.toAnsiText(failure.error)) : ""
    return Effect.zipRight(
      Console.error("(mcp-effect --help shows the commands and options)"),
      mode.json ? Console.log(json({ error: { tag: "UsageError", message: message.trim() } })) : Effect.void
    )
  }
  return Console.error(Cause.pretty(cause))
}

/**
 * 0 ok, 1 an error (a tool result with `isError` included), 2 a usage error, 130 interrupted
 * (Ctrl-C).
 *
 * @internal
 */
export const exitCode = (exit: Exit.Exit<unknown, unknown>): number => {
  if (Exit.isSuccess(exit)) return 0
  if (Cause.isInterruptedOnly(exit.cause)) return 130
  const failure = Option.getOrUndefined(Cause.failureOption(exit.cause))
  return ValidationError.isValidationError(failure) || failure instanceof UsageError ? 2 : 1
}
