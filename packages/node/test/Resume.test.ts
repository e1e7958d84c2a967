/**
 * Resume after a restart, with real processes: a host process (the fixture, on the built
 * packages) starts a call, saves what its successor needs in a file `KeyValueStore` and is
 * killed with SIGKILL; a second process loads it and finishes the call. The servers outlive both:
 * the fake server runs in this test process, the dual-era SDK v2 peer in a process of its own.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))
const fixture = path.join(here, "fixtures/resume-client.mjs")
const peer = path.join(here, "peers/dual-era-server.mjs")

/** Collects a child's stdout and resolves at the first line starting with `prefix`, or its exit. */
const lineOf = (child: ReturnType<typeof spawn>, prefix: string) =>
  new Promise<string>((resolve, reject) => {
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split("\n").find((l) => l.startsWith(prefix + " ") || l.startsWith("error "))
      if (line !== undefined) resolve(line)
    })
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`exited ${code} before "${prefix}": ${out}`)))
  })

/** The first process: starts the call, saves, and is killed (SIGKILL) once it said so. */
const startAndKill = async (args: ReadonlyArray<string>) => {
  const child = spawn(process.execPath, [fixture, ...args], { stdio: ["ignore", "pipe", "ignore"] })
  const exited = new Promise((resolve) => child.once("exit", resolve))
  try {
    const line = await lineOf(child, "saved")
    assert.match(line, /^saved /, line)
    return JSON.parse(line.slice("saved ".length)) as Record<string, unknown>
  } finally {
    child.kill("SIGKILL")
    await exited
  }
}

/** The successor: resumes from the store and prints the result. */
const resume = async (args: ReadonlyArray<string>) => {
  const child = spawn(process.execPath, [fixture, "resume", ...args], { stdio: ["ignore", "pipe", "ignore"] })
  const line = await lineOf(child, "result")
  assert.match(line, /^result /, line)
  return JSON.parse(line.slice("result ".length)) as { content: ReadonlyArray<{ text: string }> }
}

const dirs: Array<string> = []
const storeDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-resume-"))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

/** Nothing in a saved form is, or looks like, a credential (the first host sent a bearer token). */
const assertNoSecrets = (saved: Record<string, unknown>) =>
  assert.notMatch(
    JSON.stringify(saved),
    /resume-test-secret|authorization|bearer|access_token|refresh_token|client_secret/i
  )

describe("resume after a restart: the fake server", () => {
  for (const era of ["dual", "legacy"] as const) {
    it.scopedLive(`${era}: a task outlives the host that started it; a new process resumes it to its result`, () =>
      Effect.gen(function*() {
        const gate = yield* Deferred.make<void>()
        const report = FakeServer.tool(
          "report",
          (args) => Effect.as(Deferred.await(gate), `report on ${String(args.topic)}`),
          { execution: { taskSupport: "optional" } }
        )
        const server = yield* FakeHttpServer.make({ definition: { tools: [report], tasks: {}, era } })
        const dir = storeDir()
        const saved = yield* Effect.promise(() =>
          startAndKill(["start-task", server.mcpUrl, dir, "report", "{\"topic\":\"tides\"}"])
        )
        assert.strictEqual(saved.kind, "task")
        assert.strictEqual(saved.status, "working")
        assert.strictEqual(saved.era, era === "dual" ? "modern" : "legacy")
        assertNoSecrets(saved)
        // Only now, with its host dead, may the task finish.
        yield* Deferred.succeed(gate, undefined)
        const result = yield* Effect.promise(() => resume([server.mcpUrl, dir]))
        assert.strictEqual(result.content[0]!.text, "report on tides")
        assert.deepStrictEqual(fs.readdirSync(dir), [], "the successor forgets what it finished")
      }))
  }

  it.scopedLive("an input_required round saved by a dying host is answered by the next one", () =>
    Effect.gen(function*() {
      const confirm = FakeServer.tool("confirm", (args, context) =>
        Effect.succeed(
          context.inputResponses === undefined
            ? {
              resultType: "input_required" as const,
              inputRequests: { ok: { method: "elicitation/create", params: { message: "Sure?" } } },
              requestState: `state:${String(args.what)}`
            }
            : `${String(args.what)}: ${JSON.stringify(context.inputResponses)} ${context.requestState}`
        ))
      const server = yield* FakeHttpServer.make({ definition: { tools: [confirm], era: "modern" } })
      for (const answers of [undefined, "{\"ok\":{\"action\":\"decline\"}}"]) {
        const dir = storeDir()
        const saved = yield* Effect.promise(() =>
          startAndKill(["start-input", server.mcpUrl, dir, "confirm", "{\"what\":\"release\"}"])
        )
        assert.strictEqual(saved.kind, "input_required")
        assert.strictEqual(saved.requestState, "state:release")
        assertNoSecrets(saved)
        const result = yield* Effect.promise(() => resume([server.mcpUrl, dir, ...(answers ? [answers] : [])]))
        assert.strictEqual(
          result.content[0]!.text,
          answers === undefined
            ? "release: {\"ok\":{\"action\":\"accept\",\"content\":{\"confirm\":true,\"approve\":true,\"sure\":\"handler\"}}} state:release"
            : "release: {\"ok\":{\"action\":\"decline\"}} state:release"
        )
      }
    }))
})

const startPeer = () =>
  new Promise<{ readonly url: string; readonly stop: () => void }>((resolve, reject) => {
    const child = spawn(process.execPath, [peer, "http", "0"], { stdio: ["ignore", "pipe", "ignore"] })
    child.once("error", reject)
    child.stdout.on("data", (chunk: Buffer) => {
      const port = /listening (\d+)/.exec(chunk.toString())?.[1]
      if (port !== undefined) resolve({ url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill("SIGKILL") })
    })
  })

describe("resume after a restart: the dual-era SDK v2 peer (its own process)", () => {
  it("a long_job task started by a killed host is resumed: its approval asked and answered by the successor", async () => {
    const { stop, url } = await startPeer()
    try {
      const dir = storeDir()
      const saved = await startAndKill(["start-task", url, dir, "long_job", "{\"job\":\"nightly\"}"])
      assert.strictEqual(saved.era, "modern")
      assert.strictEqual((saved.tool as { name: string }).name, "long_job")
      assertNoSecrets(saved)
      const result = await resume([url, dir])
      assert.include(result.content[0]!.text, "nightly")
      assert.notInclude(result.content[0]!.text, "not run")
    } finally {
      stop()
    }
  })

  it("confirm_delete: the HMAC-protected requestState saved by a killed host is accepted from the next one", async () => {
    const { stop, url } = await startPeer()
    try {
      for (
        const [answers, expected] of [
          [undefined, "User confirmed: deleted /tmp/x"],
          ["{\"confirm\":{\"action\":\"decline\"}}", "User chose decline; /tmp/x was not deleted"]
        ] as const
      ) {
        const dir = storeDir()
        const saved = await startAndKill(["start-input", url, dir, "confirm_delete", "{\"path\":\"/tmp/x\"}"])
        assert.strictEqual(saved.method, "tools/call")
        assert.isString(saved.requestState)
        assertNoSecrets(saved)
        const result = await resume([url, dir, ...(answers === undefined ? [] : [answers])])
        assert.strictEqual(result.content[0]!.text, expected)
      }
    } finally {
      stop()
    }
  })
})
