import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import { builtinModules } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { fakeServerBin } from "./paths.js"

// The standalone facade (`@mcp-effect/node/standalone`) holds the parts of Effect it uses: a
// program that imports only it loads nothing of Effect from node_modules, and the errors it
// throws are instances of the classes it exports.

const here = Path.dirname(fileURLToPath(import.meta.url))
const programs = Path.join(here, "programs")
const bundle = Path.resolve(here, "../bundle/standalone")

interface Outcome {
  readonly echoed: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly rejected: { readonly tag: string; readonly isServerError: boolean; readonly isMcpError: boolean }
  readonly misspelled: { readonly tag: string; readonly isConfigError: boolean }
  readonly loaded: ReadonlyArray<string>
}

const runProgram = (record: string) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "./recordLoads.mjs", "standalone.mjs", fakeServerBin],
      { cwd: programs, env: { ...process.env, RECORD_LOADS: record } }
    )
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("exit", (code) => code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stderr}`)))
    setTimeout(() => child.kill("SIGKILL"), 60_000).unref()
  })

interface Metafile {
  readonly outputs: Record<
    string,
    { readonly imports: ReadonlyArray<{ readonly path: string; readonly external?: boolean }> }
  >
}

describe("the standalone facade", () => {
  it("calls a server, throws its own error classes, and loads no module outside its bundle [node-only: records loads with Node's module hooks (--import)]", async () => {
    const record = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcp-effect-standalone-")), "loads.txt")
    Fs.writeFileSync(record, "")
    const outcome = JSON.parse((await runProgram(record)).trim().split("\n").at(-1)!) as Outcome
    assert.deepStrictEqual(outcome.echoed, [{ type: "text", text: "hi" }])
    assert.deepStrictEqual(outcome.rejected, { tag: "ServerError", isServerError: true, isMcpError: true })
    assert.deepStrictEqual(outcome.misspelled, { tag: "ConfigError", isConfigError: true })
    const outside = outcome.loaded
      .map((url) => fileURLToPath(url))
      .filter((file) => !file.startsWith(bundle + Path.sep) && file !== Path.join(programs, "standalone.mjs"))
    assert.deepStrictEqual(outside, [])
    assert.isTrue(outcome.loaded.length > 1)
  })

  it("leaves nothing but Node's built-ins and ws's optional add-ons outside its bundle", () => {
    const meta = JSON.parse(Fs.readFileSync(Path.join(bundle, "meta.json"), "utf8")) as Metafile
    const externals = new Set(
      Object.values(meta.outputs).flatMap((output) =>
        output.imports.filter((i) => i.external === true).map((i) => i.path)
      )
    )
    const builtIn = (path: string) => path.startsWith("node:") || builtinModules.includes(path)
    const others = [...externals].filter((path) => !builtIn(path) && path !== "bufferutil" && path !== "utf-8-validate")
    assert.deepStrictEqual(others, [])
  })
})
