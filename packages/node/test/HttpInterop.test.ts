/**
 * Interop with server-everything over Streamable HTTP and over legacy HTTP+SSE: the same checks
 * as over stdio.
 */
import { assert, describe, it } from "@effect/vitest"
import { connect } from "@mcp-effect/node/Connect"
import type { Client } from "@mcp-effect/node/Connect"
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { afterAll, beforeAll } from "vitest"
import { everythingBin } from "./paths.js"
import { freePort, waitForPort } from "./peerProcess.js"

const texts = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.flatMap((block) => {
    const b = block as { type: string; text?: string }
    return b.type === "text" && b.text !== undefined ? [b.text] : []
  })

for (const [mode, path] of [["streamableHttp", "/mcp"], ["sse", "/sse"]] as const) {
  describe(`interop: server-everything over ${mode}`, () => {
    let server: ChildProcess | undefined
    let client: Client | undefined
    const notifications: Array<string> = []

    beforeAll(async () => {
      const port = await freePort()
      server = spawn(process.execPath, [everythingBin, mode], {
        env: { ...process.env, PORT: String(port) },
        stdio: ["ignore", "ignore", "ignore"]
      })
      await waitForPort(port)
      client = await connect(`http://127.0.0.1:${port}${path}`, {
        name: "everything",
        onNotification: (_server, method) => notifications.push(method)
      })
    }, 60_000)

    afterAll(async () => {
      await client?.close()
      server?.kill("SIGKILL")
    })

    it("negotiates the legacy era on the detected transport", () => {
      const [handle] = client!.servers
      assert.strictEqual(handle!.kind, mode === "sse" ? "sse" : "streamable_http")
      assert.strictEqual(handle!.era, "legacy")
      assert.strictEqual(handle!.protocolVersion, mode === "sse" ? "2025-11-25" : "2025-11-25")
    })

    it("calls tools, keeps structured content, and routes progress", async () => {
      assert.deepStrictEqual(texts(await client!.callTool("echo", { message: "over http" })), ["Echo: over http"])
      assert.match(texts(await client!.callTool("get-sum", { a: 40, b: 2 })).join(""), /\b42\b/)
      const structured = await client!.callTool("get-structured-content", { location: "New York" })
      assert.hasAllKeys(structured.structuredContent as object, ["temperature", "conditions", "humidity"])
      const progress: Array<number> = []
      await client!.callTool("trigger-long-running-operation", { duration: 1, steps: 3 }, {
        onProgress: (p) => progress.push(p.progress)
      })
      assert.deepStrictEqual(progress, [1, 2, 3])
    })

    it("gets prompts, reads resources and completes", async () => {
      const prompt = await client!.getPrompt("args-prompt", { city: "Porto" })
      assert.include(JSON.stringify(prompt.messages), "Porto")
      const [first] = await client!.listResources()
      const read = await client!.readResource(first!.uri)
      assert.strictEqual(read.contents[0]!.uri, first!.uri)
      const completion = await client!.complete({
        ref: { type: "ref/prompt", name: "completable-prompt" },
        argument: { name: "department", value: "E" }
      })
      assert.include(completion.completion.values, "Engineering")
    })

    it("the tools/list_changed sent after the handshake reached the listeners", async () => {
      // server-everything announces list_changed right after initialization.
      const deadline = Date.now() + 5_000
      while (!notifications.includes("notifications/tools/list_changed") && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      assert.include(notifications, "notifications/tools/list_changed")
      assert.isAbove((await client!.listTools()).length, 5)
    })
  })
}

describe("interop: handlers against server-everything over streamableHttp (legacy server requests)", () => {
  let server: ChildProcess | undefined
  let client: Client | undefined
  const logMessages: Array<unknown> = []
  const elicited: Array<string> = []

  beforeAll(async () => {
    const port = await freePort()
    server = spawn(process.execPath, [everythingBin, "streamableHttp"], {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "ignore", "ignore"]
    })
    await waitForPort(port)
    client = await connect(`http://127.0.0.1:${port}/mcp`, {
      name: "everything",
      samplingHandler: () => ({
        role: "assistant",
        content: { type: "text", text: "sampled over http!" },
        model: "test-model",
        stopReason: "endTurn"
      }),
      // One handler for both elicitations: the research task asks for an `interpretation`.
      elicitationHandler: (params) => {
        const schema = params.requestedSchema as { properties?: Record<string, unknown> } | undefined
        const research = schema?.properties?.interpretation !== undefined
        elicited.push(research ? "research" : "form")
        return research
          ? { action: "accept", content: { interpretation: "historical" } }
          : { action: "accept", content: { name: "Ada" } }
      },
      roots: [{ uri: "file:///tmp", name: "tmp" }],
      onNotification: (_server, method, params) => {
        if (method === "notifications/message") logMessages.push(params?.data)
      }
    })
  }, 60_000)

  afterAll(async () => {
    await client?.close()
    server?.kill("SIGKILL")
  })

  it("answers trigger-sampling-request through the sampling handler", async () => {
    const result = await client!.callTool("trigger-sampling-request", { prompt: "hi", maxTokens: 10 })
    assert.include(texts(result).join(""), "sampled over http!")
  })

  it("answers trigger-elicitation-request, the requested schema's defaults applied", async () => {
    const elicitedText = texts(await client!.callTool("trigger-elicitation-request", {})).join("")
    assert.include(elicitedText, "Name: Ada")
    assert.include(elicitedText, "Favorite Integer: 42")
  })

  it("serves its roots to get-roots-list", async () => {
    assert.include(texts(await client!.callTool("get-roots-list", {})).join(""), "file:///tmp")
  })

  it("toggle-simulated-logging: notifications/message reach the listener", async () => {
    await client!.callTool("toggle-simulated-logging", {})
    const deadline = Date.now() + 10_000
    while (logMessages.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    assert.isAbove(logMessages.length, 0)
  }, 30_000)

  it("simulate-research-query runs as a 2025-11-25 task, its elicitation answered, to completion", async () => {
    const before = elicited.filter((kind) => kind === "research").length
    const report = await client!.callTool("simulate-research-query", { topic: "effect systems", ambiguous: true }, {
      timeout: "60 seconds"
    })
    // "historical" is the handler's own answer: the server's fallback when elicitation fails is "technical (default …)".
    assert.include(texts(report).join(""), "**Clarification**: historical")
    assert.strictEqual(elicited.filter((kind) => kind === "research").length, before + 1)
  }, 60_000)
})
