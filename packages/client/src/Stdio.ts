/**
 * The stdio transport: the server is a child process speaking newline-delimited JSON-RPC on
 * stdin/stdout. stderr is drained to the logger at debug level unless `stderr` says to inherit
 * or discard it (its last lines go into the `ConnectionError` of an exit), and shutdown escalates
 * stdin-close → SIGTERM → SIGKILL on the whole process group.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as LogLevel from "effect/LogLevel"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import { ChildProcessSpawner } from "./ChildProcess.js"
import type { ChildProcess, ExitStatus } from "./ChildProcess.js"
import * as EraCache from "./EraCache.js"
import * as Backpressure from "./internal/backpressure.js"
import * as Defaults from "./internal/defaults.js"
import { classify, withDetail } from "./internal/failure.js"
import * as Limits from "./internal/limits.js"
import * as Masked from "./internal/masked.js"
import * as StderrTail from "./internal/stdio/stderrTail.js"
import * as StdoutNoise from "./internal/stdio/stdoutNoise.js"
import { encodeLine, makeLineDecoder } from "./internal/wire/ndjson.js"
import { ConnectionError } from "./McpError.js"
import type { ConnectError } from "./McpError.js"
import type { ServerConfig } from "./ServerConfig.js"
import type { Transport, TransportFactory } from "./Transport.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Server name; defaults to the command's base name. */
  readonly name?: string | undefined
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  /**
   * Variables the process gets on top of the host's safe default set (`HOME`, `PATH`, `USER`,
   * the proxy and CA variables, …; see `ChildProcess.inheritedVariables`): the host's other
   * variables, API keys included, are not passed on unless `inheritEnv` is true.
   */
  readonly env?: Record<string, string> | undefined
  /** Pass the host's whole environment to the process (default false). */
  readonly inheritEnv?: boolean | undefined
  readonly cwd?: string | undefined
  readonly readTimeout?: Duration.DurationInput | undefined
  /** Largest message accepted from the server; longer lines are logged and skipped (default 256 MiB). */
  readonly maxMessageBytes?: number | undefined
  /** How long to wait for an exit after closing stdin, and again after SIGTERM (default 2 seconds each). */
  readonly shutdownTimeout?: Duration.DurationInput | undefined
  /** Overrides the client's `protocol` for this server (`auto`, `modern`, `legacy`). */
  readonly protocol?: ServerConfig["protocol"]
  /** Overrides the client's bound on the `server/discover` probe for this server. */
  readonly discoverTimeout?: Duration.DurationInput | undefined
  /**
   * Where the server's stderr goes: `log` (default) drains it into the client's log, a Debug
   * line per line (escaped); `inherit` passes it to the host's own stderr; `ignore` discards it.
   * `inherit` and `ignore` cost the client nothing per line (many servers log every request).
   */
  readonly stderr?: "log" | "inherit" | "ignore" | undefined
}

// Control characters would let a server forge log lines; bidi and invisible format marks would
// let it reorder or hide what a reader sees.
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g

const sanitizeLogLine = (line: string): string =>
  line.slice(0, Limits.MAX_STDERR_LINE).replace(
    UNPRINTABLE,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
  )

/** Splits stderr into lines for the log, holding at most one bounded partial line. */
const stderrLines = (onLine: (line: string) => void) => {
  let partial = ""
  const decoder = new TextDecoder()
  return (chunk: Uint8Array) => {
    const lines = (partial + decoder.decode(chunk, { stream: true })).split(/\r?\n/)
    partial = lines.pop()!.slice(0, Limits.MAX_STDERR_LINE)
    for (const line of lines) if (line.length > 0) onLine(line)
  }
}

/** The last stderr line, for a message: the server's own words on why it stopped. */
const lastLine = (stderr: ReadonlyArray<string> | undefined) =>
  stderr === undefined || stderr.length === 0 ? "" : `: ${stderr[stderr.length - 1]}`

/** Its `stderr` is absent when the process's stderr was not piped to the client (`inherit`, `ignore`). */
const exitError = (server: string, status: ExitStatus, stderr: ReadonlyArray<string> | undefined) =>
  new ConnectionError({
    server,
    message: (status.code !== null
      ? `server process exited with code ${status.code}`
      : `server process ended by signal ${status.signal ?? "unknown"}`) + lastLine(stderr),
    reason: "exited",
    ...(status.code !== null ? { exitCode: status.code } : {}),
    ...(status.signal !== null ? { signal: status.signal } : {}),
    ...(stderr !== undefined ? { stderr } : {})
  })

// What a server that waits in silence most often lacks: a variable of the host's environment.
const ENVIRONMENT_HINT = "; it runs with the safe environment (ChildProcess.inheritedVariables): " +
  "pass what it needs with env (CLI: --env K=V) or inheritEnv (--inherit-env)"

/** A handshake that failed while the process wrote nothing on stdout. */
const silentError = (
  server: string,
  error: ConnectError,
  stderr: ReadonlyArray<string> | undefined,
  inheritEnv: boolean
) =>
  new ConnectionError({
    server,
    message: `the server printed nothing on stdout (${error.message})${inheritEnv ? "" : ENVIRONMENT_HINT}${
      lastLine(stderr)
    }`,
    cause: error,
    reason: "timeout",
    ...(stderr !== undefined ? { stderr } : {})
  })

/** Stdin closed, then SIGTERM, then SIGKILL, each waiting up to `timeout` for the exit. */
const shutdown = (proc: ChildProcess, server: string, timeout: Duration.Duration) =>
  Effect.gen(function*() {
    // Each bounded wait interruptible, for its timeout to work wherever this runs (finalizers are uninterruptible).
    const exitedWithin = Effect.isSuccess(Effect.timeout(Effect.interruptible(proc.exited), timeout))
    proc.endInput()
    if (yield* exitedWithin) return
    proc.kill("SIGTERM")
    if (yield* exitedWithin) return
    yield* Effect.logWarning(`${server}: server ignored SIGTERM; sending SIGKILL`)
    proc.kill("SIGKILL")
    yield* exitedWithin
  })

const defaultName = (command: string): string => command.split(/[\\/]/).pop() || command

/**
 * Opens the process in the current scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const transport = (options: Options): TransportFactory<ChildProcessSpawner> => (sink, server) =>
  Effect.gen(function*() {
    const shutdownTimeout = Duration.decode(options.shutdownTimeout ?? Defaults.STDIO_SHUTDOWN_TIMEOUT)
    const runtime = sink.runtime ?? (yield* Effect.runtime<never>())
    const runFork = Runtime.runFork(runtime)
    const spawner = yield* ChildProcessSpawner
    // The log fibers run at this runtime's minimum level: when it drops Debug, stderr is drained
    // without starting a fiber per line (many servers log every request there).
    const stderrPiped = options.stderr === undefined || options.stderr === "log"
    const logsStderr = LogLevel.lessThanEqual(
      FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentMinimumLogLevel),
      LogLevel.Debug
    )

    const scope = yield* Effect.scope
    // Made with the first line that is not a message: most servers never write one.
    let noise: StdoutNoise.StdoutNoise | undefined
    const decoder = makeLineDecoder(options.maxMessageBytes ?? Limits.MAX_STDIO_MESSAGE_BYTES, {
      onValue: sink.onMessage,
      onMalformed: (reason, bytes, excerpt) =>
        (noise ??= StdoutNoise.make(server, runFork, Limits.STDOUT_NOISE_INTERVAL)).onMalformed(reason, bytes, excerpt)
    })
    // Whether the process wrote anything to stdout: a handshake that failed in silence is then explained.
    let heard = false
    let stopped = false
    // Set once spawned: the first chunks may arrive before (the queue is empty then).
    let spawned: ChildProcess | undefined = undefined
    const tail = stderrPiped ? StderrTail.make() : undefined
    const logLines = stderrPiped && logsStderr
      ? stderrLines((line) => runFork(Effect.logDebug(`${server} stderr: ${sanitizeLogLine(line)}`)))
      : undefined

    // A full queue of answers to the server's requests stops reading stdout (the pipe fills, the
    // server blocks on its writes) until it drains; stopped for too long, the connection closes.
    const stopIfFull = () => {
      const wait = Backpressure.wait(sink.backpressure, server, "reading the server's stdout")
      const child = spawned
      if (wait === undefined || child?.pauseStdout === undefined) return
      stopped = true
      child.pauseStdout(true)
      runFork(Effect.match(wait, {
        onFailure: (error) => sink.onClose(error),
        onSuccess: () => {
          stopped = false
          child.pauseStdout?.(false)
        }
      }))
    }

    const proc = yield* spawner.spawn({
      command: options.command,
      args: options.args ?? [],
      env: options.env,
      inheritEnv: options.inheritEnv,
      cwd: options.cwd,
      onStdout: (chunk) => {
        heard = true
        decoder.push(chunk)
        if (!stopped) stopIfFull()
      },
      onStderr: tail === undefined
        ? () => {}
        : (chunk) => {
          tail.push(chunk)
          logLines?.(chunk)
        },
      stderr: stderrPiped ? "pipe" : options.stderr
    }).pipe(
      Effect.mapError((error) => {
        const failure = classify(error)
        return new ConnectionError({
          server,
          message: withDetail(`could not start ${options.command}`, failure),
          cause: error,
          reason: "spawn"
        })
      })
    )
    spawned = proc

    // Whether the transport is closing: the process's exit is then no crash.
    let closing = false
    const onExit = (status: ExitStatus) => {
      if (closing) return
      decoder.end()
      sink.onClose(exitError(server, status, tail?.lines()))
    }

    // Runs before the spawner's own release (finalizers run in reverse), then logs the stdout
    // noise still counted. A finalizer of the scope itself, built when it runs and forked with the
    // transport's runtime: it sees the refs of the opening (its clock, its logger) as under
    // `Effect.addFinalizer`, which keeps a copy of them per connection.
    yield* Scope.addFinalizer(
      scope,
      Effect.suspend(() => {
        closing = true
        const stopped = shutdown(proc, server, shutdownTimeout)
        return Fiber.join(runFork(noise === undefined ? stopped : Effect.ensuring(stopped, noise.flush)))
      })
    )

    // The spawner calls back on exit; one that cannot is waited on by a fiber of the scope.
    if (proc.onExit !== undefined) proc.onExit(onExit)
    else yield* Effect.forkScoped(Effect.flatMap(proc.exited, (status) => Effect.sync(() => onExit(status))))

    // Built when first needed: an idle connection keeps no error (nor its stack) around.
    let closedError: ConnectionError | undefined
    const stdinClosed = () =>
      closedError ??= new ConnectionError({ server, message: "server process stdin is closed", reason: "closed" })
    // A closed stdin means the process is gone or going, though its exit may not be seen yet:
    // closing the transport now lets the next request start a new process instead of failing
    // here too (a crash under load would otherwise fail every request sent until the exit).
    const write = (message: object) => {
      if (proc.write(encodeLine(message))) return undefined
      const error = stdinClosed()
      sink.onClose(error)
      return error
    }
    const send: Transport["send"] = (message) =>
      Effect.suspend(() => {
        const error = write(message)
        return error === undefined ? Effect.void : Effect.fail(error)
      })

    const unanswered = (error: ConnectError) =>
      heard ? undefined : silentError(server, error, tail?.lines(), options.inheritEnv === true)

    return { send, write, description: `stdio:${options.command}`, unanswered } satisfies Transport
  })

/**
 * A server configuration for a stdio server.
 *
 * @since 0.1.0
 * @category constructors
 */
export const config = (options: Options): ServerConfig<ChildProcessSpawner> => ({
  name: options.name ?? defaultName(options.command),
  kind: "stdio",
  transport: transport(options),
  readTimeout: options.readTimeout,
  protocol: options.protocol,
  discoverTimeout: options.discoverTimeout,
  eraCacheKey: EraCache.stdioKey(options),
  describe: () => Masked.describe(options)
})
