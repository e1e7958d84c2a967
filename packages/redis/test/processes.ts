/** Node programs of these tests (`programs/`, on the built packages), run as separate processes. */
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const programs = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "programs")

export interface Outcome {
  readonly code: number | null
  readonly lines: ReadonlyArray<string>
  readonly result: {
    readonly ok: boolean
    readonly tag?: string
    readonly message?: string
    readonly [k: string]: unknown
  }
  readonly stdout: string
  readonly stderr: string
}

export interface Running {
  /** Resolves when the program printed `line`. */
  readonly printed: (line: string) => Promise<void>
  readonly go: () => void
  readonly kill: () => void
  readonly done: Promise<Outcome>
}

export const start = (program: string, args: ReadonlyArray<string>): Running => {
  const child = ChildProcess.spawn(process.execPath, [Path.join(programs, program), ...args], {
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  const waiting: Array<{ readonly line: string; readonly resolve: () => void }> = []
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8")
    const lines = stdout.split("\n")
    for (const w of waiting.filter((w) => lines.includes(w.line))) w.resolve()
  })
  child.stderr.on("data", (chunk: Buffer) => stderr += chunk.toString("utf8"))
  const done = new Promise<Outcome>((resolve) =>
    child.on("close", (code) => {
      const lines = stdout.split("\n").filter((line) => line !== "")
      let result: Outcome["result"] = { ok: false, message: "no outcome" }
      try {
        result = JSON.parse(lines.at(-1) ?? "{}")
      } catch {
        // no JSON outcome: the assertion shows stdout and stderr
      }
      resolve({ code, lines, result, stdout, stderr })
    })
  )
  return {
    printed: (line) =>
      stdout.split("\n").includes(line) ? Promise.resolve() : new Promise((resolve) => waiting.push({ line, resolve })),
    go: () => child.stdin.end("go\n"),
    kill: () => child.kill("SIGKILL"),
    done
  }
}

export const run = (program: string, ...args: ReadonlyArray<string>) => Effect.promise(() => start(program, args).done)

export const succeeded = (outcome: Outcome): void => {
  if (!(outcome.result.ok && outcome.code === 0)) {
    throw new Error(`the program failed (exit ${outcome.code}):\n${outcome.stdout}\n${outcome.stderr}`)
  }
}
