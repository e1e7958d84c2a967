/**
 * Server processes on Node, straight on `node:child_process`: writes go to the pipe and output
 * comes back through callbacks, with no stream machinery in between.
 *
 * @since 0.1.0
 */
import { childEnvironment, ChildProcessSpawner } from "@mcp-effect/client/ChildProcess"
import type { ChildProcess, ExitStatus, SpawnOptions } from "@mcp-effect/client/ChildProcess"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as ChildProcessNode from "node:child_process"

/**
 * The process as the transport sees it, its exit delivered to `exited` and to the `onExit`
 * listener. Made apart from the spawn's callbacks: a closure sharing their scope would keep the
 * opening fiber (through `resume`) for the life of the process.
 */
const processOf = (child: ChildProcessNode.ChildProcess) => {
  let status: ExitStatus | undefined
  let listener: ((status: ExitStatus) => void) | undefined
  // The fibers waiting on `exited` (the shutdown's, a fallback watcher's): a set made when one
  // waits, not a `Deferred` (on Node 20, each of those gets a hidden class of its own).
  let waiters: Set<(status: ExitStatus) => void> | undefined
  const exit = (code: number | null, signal: string | null) => {
    if (status !== undefined) return
    status = { code, signal }
    listener?.(status)
    if (waiters !== undefined) { for (const waiter of waiters) waiter(status) }
    waiters = undefined
  }
  const exited = Effect.async<ExitStatus>((resume) => {
    if (status !== undefined) return resume(Effect.succeed(status))
    const waiter = (status: ExitStatus) => resume(Effect.succeed(status))
    waiters ??= new Set()
    waiters.add(waiter)
    return Effect.sync(() => void waiters?.delete(waiter))
  })
  child.on("close", exit)
  child.on("error", () => exit(null, null))
  const proc: ChildProcess = {
    pid: child.pid,
    write: (text) => child.stdin!.writable && (child.stdin!.write(text), true),
    endInput: () => void child.stdin!.end(),
    kill: (signal) => killGroup(child, signal),
    exited,
    pauseStdout: (paused) => void (paused ? child.stdout!.pause() : child.stdout!.resume()),
    onExit: (f) => {
      if (status === undefined) listener = f
      else f(status)
    }
  }
  const release = () => {
    if (status === undefined) killGroup(child, "SIGKILL")
  }
  return { proc, release }
}

const ignore = () => {}

const start = (options: SpawnOptions) =>
  Effect.async<ReturnType<typeof processOf>, Error>((resume) => {
    const child = ChildProcessNode.spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: childEnvironment(process.env, options),
      stdio: ["pipe", "pipe", options.stderr ?? "pipe"],
      // Its own process group, so shutdown reaches the grandchildren a wrapper (npx, sh) starts.
      detached: process.platform !== "win32",
      windowsHide: true
    })
    child.stdout!.on("data", options.onStdout)
    child.stderr?.on("data", options.onStderr)
    // A server that exits while we write must not crash the host with EPIPE.
    child.stdin!.on("error", ignore)
    const made = processOf(child)
    const failed = (error: Error) => resume(Effect.fail(error))
    child.once("error", failed)
    child.once("spawn", () => {
      child.off("error", failed)
      resume(Effect.succeed(made))
    })
  })

// A finalizer of the scope itself, not `Effect.acquireRelease`, whose `Effect.addFinalizer`
// keeps a copy of the opening fiber's refs per process.
const spawn = (options: SpawnOptions) =>
  Effect.flatMap(Effect.scope, (scope) =>
    Effect.uninterruptible(
      Effect.flatMap(
        start(options),
        ({ proc, release }) => Effect.as(Scope.addFinalizer(scope, Effect.sync(release)), proc)
      )
    ))

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
export const layer: Layer.Layer<ChildProcessSpawner> = Layer.succeed(ChildProcessSpawner, { spawn })
