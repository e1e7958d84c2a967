/**
 * Runs every example and prints PASS/FAIL per example; exits 1 if any failed.
 *
 * @since 0.1.0
 */
import { execFile } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const examples = [
  "effect-client",
  "promise-facade",
  "fake-server",
  "config-file",
  "tasks",
  "effect-ai-toolkit",
  "ai-sdk-tools"
]

const run = (name: string) =>
  new Promise<{ name: string; ok: boolean; output: string }>((resolve) => {
    execFile(process.execPath, [path.join(here, `${name}.js`)], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ name, ok: error === null, output: stdout + stderr })
    })
  })

const main = async () => {
  let failed = 0
  for (const name of examples) {
    const result = await run(name)
    console.log(`${result.ok ? "PASS" : "FAIL"} ${name}`)
    if (!result.ok) {
      failed++
      console.log(result.output.replace(/^/gm, "  "))
    }
  }
  console.log(`${examples.length - failed} passed, ${failed} failed`)
  process.exit(failed === 0 ? 0 : 1)
}

void main()
