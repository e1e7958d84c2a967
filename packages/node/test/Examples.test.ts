import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")

/** Runs the examples harness (`examples/dist/run-all.js`) with `env` and returns its output. */
const harness = (env: Record<string, string | undefined>) =>
  new Promise<{ readonly ok: boolean; readonly output: string }>((resolve) =>
    execFile(
      process.execPath,
      [path.join(root, "examples/dist/run-all.js")],
      { timeout: 280_000, env: { ...process.env, RUN_AI: undefined, ...env } },
      (error, stdout, stderr) => resolve({ ok: error === null, output: stdout + stderr })
    )
  )

describe("examples", () => {
  it(
    "every example passes the harness: it exits 0 and prints the lines it must print",
    async () => {
      const { ok, output } = await harness({ EXAMPLES_CONCURRENCY: "3" })
      assert.isTrue(ok, output)
      assert.notInclude(output, "FAIL")
      assert.match(output, /^PASS effect-client/m)
      // The LLM loops run against the scripted model without RUN_AI, so they pass here too.
      for (const provider of ["openai", "anthropic", "gemini"]) {
        assert.match(output, new RegExp(`^PASS llm-${provider}`, "m"))
      }
      assert.match(output, /^\d+ passed, 0 failed, 0 skipped$/m)
    },
    300_000
  )

  it("with RUN_AI=1 and no key, an LLM example is a SKIP that names the missing key", async () => {
    const { ok, output } = await harness({ RUN_AI: "1", OPENAI_API_KEY: "", EXAMPLES_ONLY: "llm-openai" })
    assert.isTrue(ok, output)
    assert.match(output, /^prerequisites: key:OPENAI_API_KEY no/m)
    assert.match(output, /^SKIP llm-openai: missing API key OPENAI_API_KEY$/m)
    assert.match(output, /^0 passed, 0 failed, 1 skipped$/m)
  }, 60_000)

  it("EXAMPLES_LOG_DIR receives each program's output", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-examples-"))
    try {
      const { ok, output } = await harness({ EXAMPLES_ONLY: "caching", EXAMPLES_LOG_DIR: dir })
      assert.isTrue(ok, output)
      assert.include(fs.readFileSync(path.join(dir, "caching.log"), "utf8"), "two listTools, tools/list requests: 1")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
