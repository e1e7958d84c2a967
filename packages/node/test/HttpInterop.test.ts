/**
 * Interop with server-everything over Streamable HTTP and over legacy HTTP+SSE: the same checks
 * as over stdio.
 */
import { assert, describe, it } from "@effect/vitest"
import { connect } from "@mcp-effect/node/Connect"
import type { Client } from "@mcp-effect/node/Connect"
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import * as net from "node:net"
import { afterAll, beforeAll } from "vitest"
import { everythingBin } from "./paths.js"

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as net.AddressInfo).port
      probe.close(() => resolve(port))
    })
  })

const waitForPort = async (port: number, deadline = Date.now() + 20_000) => {
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.end()
        resolve(true)
      })
      socket.once("error", () => resolve(false))
    })
    if (open) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`server-everything did not listen on ${port}`)
}

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
