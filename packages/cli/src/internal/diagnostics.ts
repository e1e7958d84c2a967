/**
 * What a run learns for its error messages, which the library's errors do not carry: the last
 * stderr lines of server processes that died on their own, the low-level cause of HTTP
 * transport failures (`ECONNREFUSED`, `ENOTFOUND`, TLS), and where each server is.
 *
 * @internal
 */
import * as HttpClient from "@effect/platform/HttpClient"
import { ChildProcessSpawner } from "@mcp-effect/client/ChildProcess"
import type * as ChildProcess from "@mcp-effect/client/ChildProcess"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { Mode } from "./output.js"

/** Lines of a crashed server's stderr that are shown. */
const TAIL = 20
const MAX_LINE = 2_000

/** @internal A server process that exited while the client still needed it. */
export interface Crash {
  readonly command: string
  readonly status: ChildProcess.ExitStatus
  readonly stderr: ReadonlyArray<string>
}

/** @internal A configured server, for listings and hints. */
export interface Placed {
  readonly name: string
  readonly kind: string
  /** The command line, or the URL without query and credentials. */
  readonly where: string
}

/** @internal */
export interface Diagnostics {
  readonly crashes: () => ReadonlyArray<Crash>
  /** The cause of an HTTP transport failure whose message names the request. */
  readonly transportCause: (message: string) => unknown
  readonly servers: () => ReadonlyArray<Placed>
  readonly setServers: (servers: ReadonlyArray<Placed>) => void
}

/** @internal What a command's handler may use of its run. */
export interface Run {
  readonly mode: Mode
  readonly diagnostics: Diagnostics
}

/** @internal */
export class Session extends Context.Tag("@mcp-effect/cli/Session")<Session, Run>() {}

interface Spawned {
  readonly command: string
  readonly lines: Array<string>
  partial: string
  stopping: boolean
  crashed: ChildProcess.ExitStatus | undefined
}

const collect = (spawned: Spawned, text: string) => {
  const lines = (spawned.partial + text).split(/\r?\n/)
  spawned.partial = lines.pop()!.slice(0, MAX_LINE)
  for (const line of lines) if (line.length > 0) spawned.lines.push(line.slice(0, MAX_LINE))
  spawned.lines.splice(0, Math.max(0, spawned.lines.length - TAIL))
}

/** Tees each process's stderr into a tail, and marks the processes that exit unasked. */
const watchProcesses = (spawner: ChildProcess.Service, spawned: Array<Spawned>): ChildProcess.Service => ({
  spawn: (options) =>
    Effect.gen(function*() {
      const record: Spawned = {
        command: [options.command, ...options.args].join(" "),
        lines: [],
        partial: "",
        stopping: false,
        crashed: undefined
      }
      spawned.push(record)
      const decoder = new TextDecoder()
      const proc = yield* spawner.spawn({
        ...options,
        onStderr: (chunk) => {
          collect(record, decoder.decode(chunk, { stream: true }))
          options.onStderr(chunk)
        }
      })
      yield* Effect.forkScoped(Effect.flatMap(proc.exited, (status) =>
        Effect.sync(() => {
          if (!record.stopping) record.crashed = status
        })))
      const stopping = () => (record.stopping = true)
      return {
        ...proc,
        endInput: () => {
          stopping()
          proc.endInput()
        },
        kill: (signal) => {
          stopping()
          proc.kill(signal)
        }
      } satisfies ChildProcess.ChildProcess
    })
})

/** @internal What an effect needs once watched. */
export type Watched<R> = R | ChildProcessSpawner | HttpClient.HttpClient

interface Failure {
  readonly url: string
  readonly cause: unknown
}

const recordFailures = (client: HttpClient.HttpClient, failures: Array<Failure>): HttpClient.HttpClient =>
  HttpClient.tapError(client, (error) =>
    Effect.sync(() => {
      if (error._tag !== "RequestError") return
      failures.push({ url: error.request.url, cause: error.cause })
      failures.splice(0, Math.max(0, failures.length - 20))
    }))

/**
 * A run's diagnostics, and a function that makes an effect's server processes and HTTP
 * requests report to them.
 *
 * @internal
 */
export const make = (): {
  readonly diagnostics: Diagnostics
  readonly watch: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, Watched<R>>
} => {
  const spawned: Array<Spawned> = []
  const failures: Array<Failure> = []
  let servers: ReadonlyArray<Placed> = []
  const diagnostics: Diagnostics = {
    crashes: () =>
      spawned.flatMap((s) =>
        s.crashed === undefined
          ? []
          : [{ command: s.command, status: s.crashed, stderr: s.partial === "" ? s.lines : [...s.lines, s.partial] }]
      ),
    transportCause: (message) =>
      ([...failures].reverse().find((f) => message.includes(f.url)) ?? failures[failures.length - 1])?.cause,
    servers: () => servers,
    setServers: (placed) => (servers = placed)
  }
  const watch = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Watched<R>> =>
    effect.pipe(
      Effect.provideServiceEffect(
        ChildProcessSpawner,
        Effect.map(ChildProcessSpawner, (spawner) => watchProcesses(spawner, spawned))
      ),
      Effect.provideServiceEffect(
        HttpClient.HttpClient,
        Effect.map(HttpClient.HttpClient, (client) => recordFailures(client, failures))
      )
    )
  return { diagnostics, watch }
}
