import { assert, describe, it } from "@effect/vitest"
import { ConfigError, ConnectionError, ToolNotFoundError, ToolPinMismatchError } from "@mcp-effect/client/McpError"
import * as ToolPin from "@mcp-effect/client/ToolPin"
import type * as Connect from "@mcp-effect/node/Connect"
import { connect, connectFromConfig } from "@mcp-effect/node/Connect"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fakeServerBin } from "./paths.js"

const commandLine = `${JSON.stringify(process.execPath)} ${JSON.stringify(fakeServerBin)}`

/** A logger that keeps every line, by level. */
const recording = () => {
  const lines: Array<string> = []
  const logger: Connect.Logger = {
    debug: (m) => lines.push(`debug ${m}`),
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m) => lines.push(`error ${m}`)
  }
  return { lines, logger }
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10))
}

describe("the facade: cancellation and disposal", () => {
  it("aborting a call's signal rejects with its reason and cancels the request on the wire (stdio)", async () => {
    const { lines, logger } = recording()
    const client = await connect(`${commandLine} --log-received`, { logLevel: "Debug", logger })
    try {
      const controller = new AbortController()
      const call = client.callTool("slow", { ms: 60_000 }, { signal: controller.signal })
      await until(() => lines.some((l) => l.includes("tools/call")))
      const reason = new Error("the user gave up")
      controller.abort(reason)
      const error = await call.then(() => undefined, (e: unknown) => e)
      assert.strictEqual(error, reason)
      // The server's own log of what it received, forwarded from its stderr to our logger.
      await until(() => lines.some((l) => l.includes("notifications/cancelled")))
    } finally {
      await client.close()
    }
  })

  it("an already aborted signal rejects without sending anything", async () => {
    const client = await connect(commandLine)
    try {
      const controller = new AbortController()
      controller.abort(new Error("too late"))
      const error = await client.listTools({ signal: controller.signal }).then(() => undefined, (e: unknown) => e)
      assert.strictEqual((error as Error).message, "too late")
    } finally {
      await client.close()
    }
  })

  it("await using closes the client at the end of the block", async () => {
    let kept: Connect.Client | undefined
    {
      await using client = await connect(commandLine)
      kept = client
      assert.strictEqual((await client.listTools()).length > 0, true)
    }
    const error = await kept.callTool("echo", { message: "x" }).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, ConnectionError)
  })
})

describe("the facade: parity with the Effect API", () => {
  it("setLogLevel, cacheInfo, clearCache and roots", async () => {
    const client = await connect(commandLine, { name: "demo" })
    try {
      await client.setLogLevel("debug")
      await client.listTools()
      assert.isTrue((await client.cacheInfo("tools"))?.fresh)
      await client.clearCache()
      assert.isUndefined(await client.cacheInfo("tools", { server: "demo" }))
      assert.deepStrictEqual(client.roots(), [])
      await client.setRoots([{ uri: "file:///work" }])
      assert.deepStrictEqual(client.roots(), [{ uri: "file:///work" }])
    } finally {
      await client.close()
    }
  })

  it("a custom logger receives the client's log lines (here: the server's stderr at debug level)", async () => {
    const { lines, logger } = recording()
    const client = await connect(commandLine, { logLevel: "Debug", logger })
    await client.close()
    assert.isDefined(lines.find((l) => l.startsWith("debug ") && l.includes("fake server ready")))
  })

  it("tools: { exclude } hides a tool and refuses its call, nothing sent (stdio)", async () => {
    const client = await connect(commandLine, { tools: { exclude: ["add", "bl*"] } })
    try {
      const names = (await client.listTools()).map((t) => t.name)
      assert.include(names, "echo")
      assert.notInclude(names, "add")
      assert.notInclude(names, "blob")
      const error = await client.callTool("add", { a: 1, b: 2 }).catch((e: unknown) => e)
      assert.instanceOf(error, ToolNotFoundError)
      assert.strictEqual((await client.callTool("echo", { message: "still" })).isError, undefined)
      // searchTools (issue #36, point 4) through the facade, filtered tools never found.
      assert.strictEqual((await client.searchTools("echo", { limit: 1 }))[0]?.name, "echo")
      assert.deepStrictEqual(await client.searchTools("add"), [])
    } finally {
      await client.close()
    }
  })

  it("result limits: the client's, a call's own, and a handle read back (stdio, fiber-free path)", async () => {
    const client = await connect(commandLine, { maxResultChars: 100, overflow: "handle" })
    try {
      const cut = await client.callTool("blob", { bytes: 1000 })
      const texts = cut.content.map((b) => (b as { readonly text: string }).text)
      assert.strictEqual(texts[0], "x".repeat(100))
      assert.strictEqual(
        texts[1],
        "[… 900 more characters cut by mcp-effect: maxResultChars=100; the whole result is kept as result-1]"
      )
      const slice = await client.readResult("result-1", { offset: 990 })
      assert.deepStrictEqual(slice, {
        handle: "result-1",
        text: "x".repeat(10),
        offset: 990,
        total: 1000,
        remaining: 0
      })
      const own = await client.callTool("blob", { bytes: 1000 }, { maxResultBytes: 10, overflow: "truncate" })
      assert.strictEqual(
        (own.content[1] as { readonly text: string }).text,
        "[… 990 more bytes cut by mcp-effect: maxResultBytes=10]"
      )
      const small = await client.callTool("blob", { bytes: 50 })
      assert.strictEqual(small.content.length, 1)
    } finally {
      await client.close()
    }
  })

  it("pin: a lock file pins each server; strict refuses a changed tool, nothing sent (stdio)", async () => {
    const plain = await connect(commandLine)
    const tools = await plain.listTools().finally(() => plain.close())
    const lock = await Effect.runPromise(ToolPin.lock(tools))
    const [server] = Object.keys(lock.servers)
    const entries = lock.servers[server!]!
    // As if echo had changed since the lock was written: its pin is add's fingerprint.
    const tampered: ToolPin.LockFile = { version: 1, servers: { [server!]: { ...entries, echo: entries.add! } } }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-pin-"))
    const file = path.join(dir, "mcp-lock.json")
    fs.writeFileSync(file, JSON.stringify(tampered))
    const drifts: Array<ToolPin.ToolDrift> = []
    const { lines, logger } = recording()
    const client = await connect(`${commandLine} --log-received`, {
      pin: { lock: file, mode: "strict" },
      onToolDrift: (drift) => drifts.push(drift),
      logLevel: "Debug",
      logger
    })
    try {
      const names = (await client.listTools()).map((t) => t.name)
      assert.notInclude(names, "echo")
      assert.include(names, "add")
      assert.deepStrictEqual(drifts.map((d) => [d.tool, d.kind, d.refused]), [["echo", "changed", true]])
      assert.include(drifts[0]!.fields ?? [], "name")
      const error = await client.callTool("echo", { message: "hi" }).catch((e: unknown) => e)
      assert.instanceOf(error, ToolPinMismatchError)
      assert.isTrue(lines.some((l) => l.startsWith("warn ") && l.includes("changed against its pin")))
      assert.isFalse(lines.some((l) => l.includes("tools/call")), "nothing was sent")
      assert.deepStrictEqual((await client.callTool("add", { a: 1, b: 2 })).content, [{ type: "text", text: "3" }])
      await until(() => lines.some((l) => l.includes("tools/call")))
    } finally {
      await client.close()
    }
    const missing = await connect(commandLine, { pin: { lock: path.join(dir, "none.json") } }).catch((e: unknown) => e)
    assert.instanceOf(missing, ConfigError)
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("connectFromConfig reads an mcpServers file through the McpConfig loader", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-facade-"))
    const file = path.join(dir, "mcp.json")
    fs.writeFileSync(
      file,
      JSON.stringify({ mcpServers: { demo: { command: process.execPath, args: [fakeServerBin] } } })
    )
    const client = await connectFromConfig(file)
    try {
      assert.deepStrictEqual(client.servers.map((s) => s.name), ["demo"])
      const sum = await client.callTool("add", { a: 2, b: 3 })
      assert.deepStrictEqual(sum.structuredContent, { sum: 5 })
    } finally {
      await client.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("typed handlers: the elicitation handler gets ElicitRequestParams", async () => {
    // A type-level check (tsconfig.test.json): params.message is a string, the answer an ElicitResult.
    const options: Connect.ConnectOptions = {
      elicitationHandler: (params) => ({ action: params.message.length > 0 ? "accept" : "decline", content: {} }),
      samplingHandler: (params) => ({
        role: "assistant",
        content: { type: "text", text: `${params.messages.length} messages` },
        model: "none"
      })
    }
    const client = await connect(commandLine, options)
    try {
      assert.isDefined(client.servers[0]!.capabilities)
    } finally {
      await client.close()
    }
  })
})
