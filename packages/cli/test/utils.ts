import * as Effect from "effect/Effect"
import { execFile, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

export const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../..")
/** The built executable (`npm run build` first). */
export const bin = Path.join(root, "packages/cli/bundle/mcp-effect.js")
export const fakeServerBin = Path.join(root, "packages/testing/bundle/fake-server.js")

export interface Result {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export interface RunOptions {
  /** Default: an empty folder, so no configuration file is found by accident. */
  readonly cwd?: string | undefined
  readonly env?: Record<string, string | undefined> | undefined
}

/** The environment of a run: ours without what would change the CLI's behaviour. */
const environment = (extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ["MCP_CONFIG", "NO_COLOR", "FORCE_COLOR"]) delete env[name]
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name]
    else env[name] = value
  }
  return env
}

/** A folder that lives as long as the scope. */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-cli-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

const emptyDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-cli-empty-"))

/** Runs the built CLI to its end. */
export const cli = (args: ReadonlyArray<string>, options: RunOptions = {}) =>
  Effect.async<Result>((resume) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { cwd: options.cwd ?? emptyDir, env: environment(options.env), timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null
        resume(Effect.succeed({ code, stdout, stderr }))
      }
    )
    return Effect.sync(() => child.kill())
  })

const quote = (word: string) => `'${word.replace(/'/g, "'\\''")}'`

/** util-linux `script` gives the CLI a terminal (stdout and stderr, merged). */
export const terminalAvailable = process.platform === "linux" && Fs.existsSync("/usr/bin/script")

/** Runs the built CLI on a pseudo-terminal; `stdout` is everything it wrote. */
export const onTerminal = (args: ReadonlyArray<string>, options: RunOptions = {}) =>
  Effect.async<Result>((resume) => {
    const line = [process.execPath, bin, ...args].map(quote).join(" ")
    const child = execFile(
      "/usr/bin/script",
      ["-qec", line, "/dev/null"],
      { cwd: options.cwd ?? emptyDir, env: environment(options.env), timeout: 30_000 },
      (error, stdout, stderr) => resume(Effect.succeed({ code: error === null ? 0 : null, stdout, stderr }))
    )
    return Effect.sync(() => child.kill())
  })

/** Starts the built CLI, waits for `ready` on its stderr, sends SIGINT, and returns how it ended. */
export const interrupted = (args: ReadonlyArray<string>, ready: string, options: RunOptions = {}) =>
  Effect.async<Result>((resume) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: options.cwd ?? emptyDir,
      env: environment(options.env)
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += String(chunk)))
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk)
      if (stderr.includes(ready)) child.kill("SIGINT")
    })
    child.on("exit", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** Writes a configuration file into `dir`. */
export const writeJson = (dir: string, name: string, document: unknown): string => {
  const file = Path.join(dir, name)
  Fs.mkdirSync(Path.dirname(file), { recursive: true })
  Fs.writeFileSync(file, JSON.stringify(document, null, 2))
  return file
}

/** A stdio entry for the fake server. */
export const fakeEntry = { command: process.execPath, args: [fakeServerBin] }

// eslint-disable-next-line no-control-regex
export const ANSI = /\u001b\[/
