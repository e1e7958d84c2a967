/**
 * Server processes on Node, straight on `node:child_process`: writes go to the pipe and output
 * comes back through callbacks, with no stream machinery in between.
 *
 * @since 0.1.0
 */
import { childEnvironment, ChildProcessSpawner } from "@mcp-effect/client/ChildProcess"
import type { ChildProcess, ExitStatus, SpawnOptions } from "@mcp-effect/client/ChildProcess"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as ChildProcessNode from "node:child_process"

const spawn = (options: SpawnOptions) =>
  Effect.acquireRelease(
    Effect.async<{ child: ChildProcessNode.ChildProcess; exited: Deferred.Deferred<ExitStatus> }, Error>((resume) => {
      const child = ChildProcessNode.spawn(options.command, [...options.args], {
        cwd: options.cwd,
        env: childEnvironment(process.env, options),
        stdio: ["pipe", "pipe", options.stderr ?? "pipe"],
        // Its own process group, so shutdown reaches the grandchildren a wrapper (npx, sh) starts.
        detached: process.platform !== "win32",
        windowsHide: true
      })
      const exited = Deferred.unsafeMake<ExitStatus>(FiberId.none)
      child.stdout!.on("data", options.onStdout)
      child.stderr?.on("data", options.onStderr)
      // A server that exits while we write must not crash the host with EPIPE.
      child.stdin!.on("error", () => {})
      child.on("close", (code, signal) => Deferred.unsafeDone(exited, Effect.succeed({ code, signal })))
      child.once("error", (error) => {
        Deferred.unsafeDone(exited, Effect.succeed({ code: null, signal: null }))
        resume(Effect.fail(error))
      })
      child.once("spawn", () => resume(Effect.succeed({ child, exited })))
    }),
    ({ child, exited }) =>
      Effect.flatMap(Deferred.isDone(exited), (done) =>
        done ? Effect.void : Effect.sync(() => killGroup(child, "SIGKILL")))
  )

const killGroup = (child: ChildProcessNode.ChildProcess, signal: "SIGTERM" | "SIGKILL") => {
  try {
    if (child.pid !== undefined && process.platform !== "win32") process.kill(-child.pid, signal)
    else child.kill(signal)
  } catch {
    child.kill(signal)
  }
}

/**
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<ChildProcessSpawner> = Layer.succeed(ChildProcessSpawner, {
  spawn: (options) =>
    Effect.map(spawn(options), ({ child, exited }): ChildProcess => ({
      pid: child.pid,
      write: (text) => child.stdin!.writable && (child.stdin!.write(text), true),
      endInput: () => void child.stdin!.end(),
      kill: (signal) => killGroup(child, signal),
      exited: Deferred.await(exited),
      pauseStdout: (paused) => void (paused ? child.stdout!.pause() : child.stdout!.resume())
    }))
})
