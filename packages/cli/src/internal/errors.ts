/**
 * Failures for a person (one line, then a hint and a crashed server's stderr) and
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
import type { Diagnostics } from "./diagnostics.js"
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
  /** A `ConnectionError`'s `reason` (`refused`, `dns`, `tls`, `exited`, …). */
  readonly reason?: McpError.ConnectionFailureReason | undefined
  readonly hint?: string | undefined
  readonly stderr?:
    | { readonly command: string; readonly exit: string; readonly lines: ReadonlyArray<string> }
    | undefined
}

/** What a certificate problem asks of the user, by the code the message names. */
const tlsHint = (message: string): string =>
  message.includes("WRONG_VERSION_NUMBER")
    ? "the server does not seem to speak TLS: try http://"
    : message.includes("CERT_HAS_EXPIRED")
    ? "the server's certificate has expired"
    : message.includes("ALTNAME")
    ? "the certificate does not name this host: check the host name in the URL"
    : "the certificate is not trusted here: set NODE_EXTRA_CA_CERTS to the file of its CA"

const REASON_HINTS: Partial<
  Record<McpError.ConnectionFailureReason, (message: string, where: string | undefined) => string>
> = {
  refused: () => "nothing listens there: is the server running, on this host and port?",
  dns: () => "check the host name in the URL, and the network's DNS",
  tls: tlsHint,
  // A stdio server's silence is explained in its message.
  timeout: (_message, where) =>
    where?.startsWith("http") === true ? "is a firewall or a proxy in the way? (HTTPS_PROXY)" : "",
  proxy: () => "check HTTPS_PROXY / HTTP_PROXY / NO_PROXY and the proxy's credentials",
  spawn: () => "check the command: is it installed and on PATH?"
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
  if (error instanceof McpError.ConnectionError && error.reason !== undefined) {
    return REASON_HINTS[error.reason]?.(error.message, where) || undefined
  }
  return undefined
}

/** An exited server's last stderr lines, as the library kept them (escaped, bounded). */
const stderrOf = (error: McpError.ConnectionError, diagnostics: Diagnostics): Described["stderr"] =>
  error.reason !== "exited" || error.stderr === undefined
    ? undefined
    : {
      command: format.clean(whereOf(error, diagnostics) ?? error.server),
      exit: error.exitCode !== undefined
        ? `exited with code ${error.exitCode}`
        : `ended by ${error.signal ?? "a signal"}`,
      lines: error.stderr.map(format.clean)
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
  const server = (error as { readonly server?: unknown }).server
  const connection = error instanceof McpError.ConnectionError ? error : undefined
  return {
    tag: error._tag,
    message: format.clean(error.message),
    server: typeof server === "string" ? server : undefined,
    reason: connection?.reason,
    hint: hintOf(error, diagnostics),
    stderr: connection === undefined ? undefined : stderrOf(connection, diagnostics)
  }
}

/**
 * The lines after a failure's first one: a hint, a crashed server's stderr.
 *
 * @internal
 */
export const details = (described: Described): ReadonlyArray<string> => {
  const lines: Array<string> = []
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
