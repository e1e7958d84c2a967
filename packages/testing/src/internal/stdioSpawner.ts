/**
 * Processes that are fake servers in memory: what the client writes to "stdin" is framed into
 * lines and served, what the server sends comes back as "stdout" chunks on a later tick, as
 * through a pipe.
 *
 * @internal
 */
import type * as ChildProcess from "@mcp-effect/client/ChildProcess"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { FakeServer } from "../FakeServer.js"

/** @internal */
export const make = (server: FakeServer): ChildProcess.Service => {
  let pids = 0
  return {
    spawn: (options) =>
      Effect.gen(function*() {
        const exited = yield* Deferred.make<ChildProcess.ExitStatus>()
        let running = true
        const exit = (code: number | null, signal: string | null) => {
          if (!running) return
          running = false
          // After what the server wrote so far reached the client, as a real exit would.
          setImmediate(() => Deferred.unsafeDone(exited, Exit.succeed({ code, signal })))
        }
        yield* Effect.addFinalizer(() => Effect.sync(() => exit(null, "SIGTERM")))
        const encoder = new TextEncoder()
        const stdout = (text: string) => {
          const bytes = encoder.encode(text)
          setImmediate(() => options.onStdout(bytes))
        }
        const connection = yield* server.serve({
          send: (message) => stdout(JSON.stringify(message) + "\n"),
          sendRaw: (text) => stdout(text + "\n"),
          close: () => exit(3, null)
        })
        let partial = ""
        return {
          pid: ++pids,
          write: (text) => {
            if (!running) return false
            const lines = (partial + text).split("\n")
            partial = lines.pop()!
            for (const line of lines) {
              if (line.trim() !== "") connection.receive(JSON.parse(line))
            }
            return true
          },
          endInput: () => exit(0, null),
          kill: (signal) => exit(null, signal),
          exited: Deferred.await(exited)
        } satisfies ChildProcess.ChildProcess
      })
  }
}
