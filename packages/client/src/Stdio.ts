/**
 * The stdio transport: the server is a child process speaking newline-delimited JSON-RPC on
 * stdin/stdout. stderr is always drained (to the logger, at debug level), and shutdown
 * escalates stdin-close → SIGTERM → SIGKILL on the whole process group.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Mailbox from "effect/Mailbox"
import * as Runtime from "effect/Runtime"
import * as Stream from "effect/Stream"
import { encodeLine, makeLineDecoder } from "./internal/ndjson.js"
import { ConnectionError } from "./McpError.js"
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
  /** Variables added to the inherited environment. */
  readonly env?: Record<string, string> | undefined
  readonly cwd?: string | undefined
  readonly readTimeout?: Duration.DurationInput | undefined
  /** Largest message accepted from the server; longer lines are logged and skipped (default 256 MiB). */
  readonly maxMessageBytes?: number | undefined
  /** How long to wait for an exit after closing stdin, and again after SIGTERM (default 2 seconds each). */
  readonly shutdownTimeout?: Duration.DurationInput | undefined
}

const MAX_STDERR_LINE = 2_000

/** Control characters would let a server forge log lines. */
const sanitizeLogLine = (line: string): string =>
  // eslint-disable-next-line no-control-regex
  line.slice(0, MAX_STDERR_LINE).replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) =>
    `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/**
 * Opens the process in the current scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const transport = (options: Options): TransportFactory<CommandExecutor.CommandExecutor> => (sink) =>
  Effect.gen(function*() {
    const server = options.name ?? defaultName(options.command)
    const shutdownTimeout = Duration.decode(options.shutdownTimeout ?? "2 seconds")
    let command = Command.make(options.command, ...(options.args ?? []))
    if (options.env !== undefined) command = Command.env(command, options.env)
    if (options.cwd !== undefined) command = Command.workingDirectory(command, options.cwd)
    const proc = yield* Command.start(command).pipe(
      Effect.mapError((error) =>
        new ConnectionError({ server, message: `could not start ${options.command}: ${error.message}` })
      )
    )
    const stdin = yield* Mailbox.make<Uint8Array>()
    yield* Effect.forkScoped(Effect.ignore(Stream.run(Mailbox.toStream(stdin), proc.stdin)))

    // Runs before the platform's own release (finalizers run in reverse), so a server that
    // ignores SIGTERM is still killed and the scope never hangs on it. Finalizers are
    // uninterruptible: each bounded wait must be made interruptible for its timeout to work.
    const within = <A, E>(effect: Effect.Effect<A, E>) =>
      Effect.isSuccess(Effect.timeout(Effect.interruptible(effect), shutdownTimeout))
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        yield* stdin.end
        if (yield* within(proc.exitCode)) return
        if (yield* within(proc.kill("SIGTERM"))) return
        yield* Effect.logWarning(`${server}: server ignored SIGTERM; sending SIGKILL`)
        yield* within(proc.kill("SIGKILL"))
      })
    )

    yield* proc.stderr.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((line) =>
        line.length === 0 ? Effect.void : Effect.logDebug(`${server} stderr: ${sanitizeLogLine(line)}`)
      ),
      Effect.ignore,
      Effect.forkScoped
    )

    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const decoder = makeLineDecoder(options.maxMessageBytes ?? 256 * 1024 * 1024, {
      onValue: sink.onMessage,
      onMalformed: (reason, bytes, summary) =>
        runFork(
          Effect.logWarning(
            `${server}: skipped a ${reason === "too-long" ? "too long" : "malformed"} line (${bytes} bytes)${
              summary === "" ? "" : ` ${summary}`
            }`
          )
        )
    })
    yield* proc.stdout.pipe(
      Stream.runForEach((chunk) => Effect.sync(() => decoder.push(chunk))),
      Effect.ignore,
      Effect.zipRight(Effect.sync(() => decoder.end())),
      Effect.zipRight(Effect.either(proc.exitCode)),
      Effect.flatMap((exit) =>
        Effect.sync(() =>
          sink.onClose(
            new ConnectionError({
              server,
              message: exit._tag === "Right"
                ? `server process exited with code ${exit.right}`
                : `server process ended: ${exit.left.message}`
            })
          )
        )
      ),
      Effect.forkScoped
    )

    const closedError = new ConnectionError({ server, message: "server process stdin is closed" })
    const send: Transport["send"] = (message) =>
      Effect.suspend(() => stdin.unsafeOffer(encodeLine(message)) ? Effect.void : Effect.fail(closedError))

    return { send, description: `stdio:${options.command}` } satisfies Transport
  })

const defaultName = (command: string): string => command.split(/[\\/]/).pop() || command

/**
 * A server configuration for a stdio server.
 *
 * @since 0.1.0
 * @category constructors
 */
export const config = (options: Options): ServerConfig<CommandExecutor.CommandExecutor> => ({
  name: options.name ?? defaultName(options.command),
  kind: "stdio",
  transport: transport(options),
  readTimeout: options.readTimeout
})
