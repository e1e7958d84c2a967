/**
 * The examples harness (`npm run examples`): checks the prerequisites first, then runs every
 * example and prints PASS / FAIL / SKIP per program — SKIP with its reason (a missing API key, no
 * `npx`, no network) — and a summary; exits 1 if any failed. An example passes when it exits 0
 * within the timeout and printed every line it must print.
 *
 *   EXAMPLES_TIMEOUT   seconds per program (default 60)
 *   EXAMPLES_LOG_DIR   a folder that receives each program's output as `<name>.log`
 *   EXAMPLES_ONLY      a comma-separated list of names to run (default: all)
 *   EXAMPLES_CONCURRENCY  programs run at once (default 1; results print in list order)
 *   RUN_AI=1           the LLM examples call the real APIs (and are skipped without their key);
 *                      otherwise they run against a scripted model
 *
 * To add an example, append an entry to `examples` below.
 *
 * @since 0.1.0
 */
import { execFile } from "node:child_process"
import { lookup } from "node:dns/promises"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** What an example may need before it can run. */
type Prerequisite = "npx" | "network" | `key:${string}`

/**
 * @since 0.1.0
 * @category models
 */
export interface Example {
  /** Reported name (and log file name). */
  readonly name: string
  /** The compiled program, `examples/dist/<file>.js` (default: `name`). */
  readonly file?: string
  readonly args?: ReadonlyArray<string>
  /** Lines the output must contain: a substring or a pattern each. */
  readonly expect: ReadonlyArray<string | RegExp>
  readonly needs?: ReadonlyArray<Prerequisite>
}

const runAi = process.env.RUN_AI === "1"

/** An LLM example: live with `RUN_AI=1` (needs the key), else against the scripted model. */
const llm = (provider: string, key: string): Example => ({
  name: `llm-${provider}`,
  file: "llm-tool-loop",
  args: [provider],
  expect: [
    runAi ? `model: ${provider} (live)` : `model: scripted, ${provider} format`,
    /model calls add/,
    /^answer: /m
  ],
  needs: runAi ? [`key:${key}`, "network"] : []
})

/**
 * Every example, in the order they run.
 *
 * @since 0.1.0
 * @category constants
 */
export const examples: Array<Example> = [
  { name: "effect-client", expect: [/tools: .*echo/] },
  { name: "promise-facade", expect: ["ambiguous: offered by", "echo →"] },
  { name: "fake-server", expect: ["first call: ServerError", "the server saw 2 calls"] },
  { name: "config-file", expect: ["configured servers: demo", "demo://readme →"] },
  { name: "tasks", expect: [/started task-\S+ on jobs/, "completed:"] },
  { name: "resume", expect: [/saved: \S+ \(working\), and a InputRequiredError/, "task resumed:", "round resumed:"] },
  { name: "effect-ai-toolkit", expect: ["model sees tools:", "answer: 2 + 40 = 42"] },
  { name: "ai-sdk-tools", expect: ["step called add", "answer: 2 + 40 = 42"] },
  { name: "elicitation", expect: ["elicitation: the server asks \"Which date?\"", "result: booked for 2026-08-01"] },
  { name: "sampling", expect: ["sampling: 1 message(s), maxTokens 100", "summary: MCP connects models to tools."] },
  { name: "roots", expect: ["server sees roots: none", "server sees roots: file:///work/project"] },
  {
    name: "logging",
    expect: ["client WARN: mcp-effect: logging is deprecated", "server log (demo, info): hello from the server"]
  },
  { name: "caching", expect: ["two listTools, tools/list requests: 1", "after clearCache, tools/list requests: 2"] },
  { name: "shared-cache", expect: ["two connections listed tools, tools/list requests: 1"] },
  {
    name: "subscriptions",
    expect: ["notification: notifications/tools/list_changed", "notification: notifications/resources/updated"]
  },
  { name: "oauth", expect: ["echo → authorized", /grants: authorization_code/] },
  {
    name: "oauth-storage",
    expect: [
      "first run: the browser opens",
      /second run: \d+ tools, no browser/,
      "second run grants: refresh_token",
      "token file encrypted: true"
    ]
  },
  {
    name: "tracing",
    expect: [
      /trusted server saw _meta: \{"traceparent":"00-[0-9a-f]{32}-[0-9a-f]{16}-01"\}/,
      "untrusted server saw _meta: undefined",
      /name: ['"]tools\/call echo['"]/
    ]
  },
  {
    name: "connection-state",
    expect: [
      "demo: reconnecting (attempt 1: ConnectionError: server crashed)",
      "echo → [{\"type\":\"text\",\"text\":\"back again\"}]",
      "demo: closed"
    ]
  },
  {
    name: "raw-requests",
    expect: ["acme/search: about effect (0.9)", "acme/unknown: ServerError, server rejected: true", /^page 2: /m]
  },
  {
    name: "many-servers",
    expect: [
      "connected at start: none",
      "search \"issue\": github/github__create_issue, github/github__search_issues",
      "connected after the search: github, files, notes",
      "delete_repo: ToolNotFoundError, requests sent: 0",
      "[… 9,800 more characters cut by mcp-effect: maxResultChars=200; the whole result is kept as result-1]",
      "read back from result-1: \"note note \", 0 left of 10000",
      "search tools: files__search, notes__search",
      "notes__search: {\"type\":\"text\",\"text\":\"search\"}, sent as search"
    ]
  },
  {
    name: "drift-pinning",
    expect: [
      "locked: create_issue, search_issues",
      "warn: github: tool \"create_issue\" changed against its pin (description)",
      "warn mode lists: create_issue, search_issues",
      "strict mode lists: search_issues",
      "create_issue: ToolPinMismatchError, requests sent: 0"
    ]
  },
  llm("openai", "OPENAI_API_KEY"),
  llm("anthropic", "ANTHROPIC_API_KEY"),
  llm("gemini", "GEMINI_API_KEY")
]

const here = path.dirname(fileURLToPath(import.meta.url))
const timeoutMs = Number(process.env.EXAMPLES_TIMEOUT ?? "60") * 1000
const logDir = process.env.EXAMPLES_LOG_DIR

/** Why a prerequisite is not met, or `undefined` when it is. */
const check = async (prerequisite: Prerequisite): Promise<string | undefined> => {
  if (prerequisite.startsWith("key:")) {
    const key = prerequisite.slice(4)
    return process.env[key] === undefined || process.env[key] === "" ? `missing API key ${key}` : undefined
  }
  if (prerequisite === "npx") {
    return new Promise((resolve) =>
      execFile(
        "npx",
        ["--version"],
        { timeout: 10_000 },
        (error) => resolve(error === null ? undefined : "missing npx")
      )
    )
  }
  return lookup("registry.npmjs.org").then(() => undefined, () => "no network")
}

interface Outcome {
  readonly status: "PASS" | "FAIL" | "SKIP"
  readonly reason?: string
  readonly output?: string
}

const run = (example: Example): Promise<Outcome> =>
  new Promise((resolve) => {
    const file = path.join(here, `${example.file ?? example.name}.js`)
    execFile(process.execPath, [file, ...example.args ?? []], { timeout: timeoutMs }, (error, stdout, stderr) => {
      const output = stdout + stderr
      if (logDir !== undefined) fs.writeFileSync(path.join(logDir, `${example.name}.log`), output)
      if (error !== null) {
        const reason = error.killed ? `timed out after ${timeoutMs / 1000} s` : `exit code ${String(error.code)}`
        return resolve({ status: "FAIL", reason, output })
      }
      const missing = example.expect.filter((line) =>
        typeof line === "string" ? !output.includes(line) : !line.test(output)
      )
      resolve(
        missing.length === 0
          ? { status: "PASS" }
          : { status: "FAIL", reason: `missing output ${missing.map(String).join(", ")}`, output }
      )
    })
  })

/** Runs the tasks at most `EXAMPLES_CONCURRENCY` at a time; the promises keep the tasks' order. */
const pool = <A>(tasks: ReadonlyArray<() => Promise<A>>): Array<Promise<A>> => {
  const limit = Math.max(1, Number(process.env.EXAMPLES_CONCURRENCY ?? "1") || 1)
  let running = 0
  const waiting: Array<() => void> = []
  return tasks.map(async (task) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve))
    running++
    try {
      return await task()
    } finally {
      running--
      waiting.shift()?.()
    }
  })
}

const main = async () => {
  if (logDir !== undefined) fs.mkdirSync(logDir, { recursive: true })
  const only = process.env.EXAMPLES_ONLY?.split(",").map((s) => s.trim())
  const selected = only === undefined ? examples : examples.filter((e) => only.includes(e.name))
  // Prerequisites first, each checked once.
  const needed = [...new Set(selected.flatMap((e) => e.needs ?? []))]
  const unmet = new Map(await Promise.all(needed.map(async (p) => [p, await check(p)] as const)))
  if (needed.length > 0) {
    console.log(`prerequisites: ${needed.map((p) => `${p} ${unmet.get(p) === undefined ? "ok" : "no"}`).join(", ")}`)
  }
  const counts = { PASS: 0, FAIL: 0, SKIP: 0 }
  const outcomes = pool(selected.map((example) => async () => {
    const skip = (example.needs ?? []).map((p) => unmet.get(p)).find((reason) => reason !== undefined)
    const started = Date.now()
    const outcome: Outcome = skip !== undefined ? { status: "SKIP", reason: skip } : await run(example)
    return { outcome, seconds: (Date.now() - started) / 1000 }
  }))
  for (const [i, example] of selected.entries()) {
    const { outcome, seconds } = await outcomes[i]!
    counts[outcome.status]++
    const took = outcome.status === "SKIP" ? "" : ` (${seconds.toFixed(1)} s)`
    console.log(`${outcome.status} ${example.name}${took}${outcome.reason === undefined ? "" : `: ${outcome.reason}`}`)
    if (outcome.status === "FAIL" && outcome.output !== undefined) console.log(outcome.output.replace(/^/gm, "  "))
  }
  console.log(`${counts.PASS} passed, ${counts.FAIL} failed, ${counts.SKIP} skipped`)
  process.exit(counts.FAIL === 0 ? 0 : 1)
}

void main()
