/**
 * Starting server processes, as a service: the stdio transport needs only a process it can
 * write to and be called back from. `@mcp-effect/node` provides a direct `node:child_process`
 * implementation; {@link layerCommandExecutor} adapts any `@effect/platform` `CommandExecutor`.
 *
 * Output arrives through callbacks rather than a `Stream` so that a message costs no fiber or
 * channel hop (see `docs/architecture.md`).
 *
 * @since 0.1.0
 */
import * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/**
 * @since 0.1.0
 * @category models
 */
export interface SpawnOptions {
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** Variables added to the environment the process gets (see {@link childEnvironment}). */
  readonly env?: Record<string, string> | undefined
  /** The process gets the host's whole environment instead of {@link inheritedVariables} only. */
  readonly inheritEnv?: boolean | undefined
  readonly cwd?: string | undefined
  readonly onStdout: (chunk: Uint8Array) => void
  /** Called with each chunk of stderr when it is piped. */
  readonly onStderr: (chunk: Uint8Array) => void
  /**
   * What the process's stderr is: `pipe` (default) hands it to `onStderr`; `inherit` shares the
   * host's stderr; `ignore` discards it. A spawner that cannot inherit or discard pipes it.
   */
  readonly stderr?: "pipe" | "inherit" | "ignore" | undefined
}

/**
 * How a process ended.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExitStatus {
  readonly code: number | null
  readonly signal: string | null
}

/**
 * A running process. `kill` signals its whole process group.
 *
 * @since 0.1.0
 * @category models
 */
export interface ChildProcess {
  readonly pid: number | undefined
  /** Writes text to stdin; `false` once stdin is closed. */
  readonly write: (text: string) => boolean
  /** Closes stdin, the polite way to ask a stdio server to stop. */
  readonly endInput: () => void
  readonly kill: (signal: "SIGTERM" | "SIGKILL") => void
  /** Resolves once the process exited and its output was delivered. */
  readonly exited: Effect.Effect<ExitStatus>
  /**
   * Stops (`true`) or resumes (`false`) reading stdout: no `onStdout` call while stopped, the
   * pipe filling up until the process blocks on its writes. A spawner without it reads on.
   *
   * @since 0.2.0
   */
  readonly pauseStdout?: ((paused: boolean) => void) | undefined
  /**
   * Calls `listener` once the process exited and its output was delivered (as `exited` would
   * resolve), from the spawner's own callback: the transport then watches the process without
   * a fiber. A spawner without it: the transport waits on `exited` in a fiber.
   *
   * @since 0.2.0
   */
  readonly onExit?: ((listener: (status: ExitStatus) => void) => void) | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Starts a process in the current scope; closing the scope kills what is still running. */
  readonly spawn: (options: SpawnOptions) => Effect.Effect<ChildProcess, Error, Scope.Scope>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class ChildProcessSpawner
  extends Context.Tag("@mcp-effect/client/ChildProcessSpawner")<ChildProcessSpawner, Service>()
{}

/**
 * The host variables a server process gets by default: what a program needs to run (a path, a
 * home, a user, a shell, a terminal) and to reach the network the host reaches (proxies, extra
 * CA certificates), and not the rest of the host's environment — API keys and tokens stay with
 * the host unless an entry passes them in `env`, or asks for `inheritEnv`. A proxy URL may hold
 * credentials: it is passed as is (the server needs it), and never printed.
 *
 * @since 0.2.0
 * @category constants
 */
export const inheritedVariables: ReadonlyArray<string> = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
  // The network: a server started with npx or uvx downloads its package through them.
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "npm_config_proxy",
  "npm_config_https_proxy",
  "npm_config_noproxy",
  "npm_config_cafile",
  // Windows
  "APPDATA",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PATHEXT",
  "PROCESSOR_ARCHITECTURE",
  "PROGRAMFILES",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "TMP",
  "USERNAME",
  "USERPROFILE",
  "WINDIR"
]

/**
 * The environment of a server process: the host's {@link inheritedVariables} (or all of it with
 * `inheritEnv`), then `env` on top. Values that start with `()` (exported shell functions) are
 * not inherited.
 *
 * @since 0.2.0
 * @category constructors
 */
export const childEnvironment = (
  host: Readonly<Record<string, string | undefined>>,
  options: { readonly env?: Record<string, string> | undefined; readonly inheritEnv?: boolean | undefined }
): Record<string, string> => {
  const inherited: Record<string, string> = {}
  const names = options.inheritEnv === true ? Object.keys(host) : inheritedVariables
  for (const name of names) {
    const value = host[name]
    if (value !== undefined && !value.startsWith("()")) inherited[name] = value
  }
  return { ...inherited, ...options.env }
}

const encoder = new TextEncoder()

/**
 * A spawner on any platform's `CommandExecutor` (Bun, Deno, Node). Costs a stream hop per
 * message; on Node prefer `NodeChildProcess.layer` from `@mcp-effect/node`. The platform's
 * executor adds the host's whole environment to every command, so `inheritEnv: false` cannot be
 * honoured here: only `NodeChildProcess.layer` limits a server to {@link inheritedVariables}.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerCommandExecutor: Layer.Layer<ChildProcessSpawner, never, CommandExecutor.CommandExecutor> = Layer
  .effect(
    ChildProcessSpawner,
    Effect.map(CommandExecutor.CommandExecutor, (executor) => ({
      spawn: (options) =>
        Effect.gen(function*() {
          let command = Command.make(options.command, ...options.args)
          if (options.env !== undefined) command = Command.env(command, options.env)
          if (options.cwd !== undefined) command = Command.workingDirectory(command, options.cwd)
          if (options.stderr === "inherit") command = Command.stderr(command, "inherit")
          const proc = yield* executor.start(command)
          const stdin = yield* Mailbox.make<Uint8Array>()
          yield* Effect.forkScoped(Effect.ignore(Stream.run(Mailbox.toStream(stdin), proc.stdin)))
          const drain = (stream: Stream.Stream<Uint8Array, unknown>, onChunk: (chunk: Uint8Array) => void) =>
            Effect.forkScoped(Effect.ignore(Stream.runForEach(stream, (chunk) => Effect.sync(() => onChunk(chunk)))))
          const stdout = yield* drain(proc.stdout, options.onStdout)
          // The executor cannot discard stderr: it is drained instead.
          if (options.stderr !== "inherit") {
            yield* drain(proc.stderr, options.stderr === "ignore" ? () => {} : options.onStderr)
          }
          const exited = yield* Deferred.make<ExitStatus>()
          yield* Effect.forkScoped(
            Effect.zipRight(
              stdout.await,
              Effect.flatMap(
                Effect.either(proc.exitCode),
                (exit) =>
                  Deferred.succeed(
                    exited,
                    exit._tag === "Right" ? { code: exit.right, signal: null } : { code: null, signal: "unknown" }
                  )
              )
            )
          )
          const signal = (name: "SIGTERM" | "SIGKILL") => Effect.runFork(Effect.ignore(proc.kill(name)))
          return {
            pid: proc.pid,
            write: (text) => stdin.unsafeOffer(encoder.encode(text)),
            endInput: () => void Effect.runFork(stdin.end),
            kill: (name) => void signal(name),
            exited: Deferred.await(exited)
          } satisfies ChildProcess
        })
    }))
  )
