/**
 * One unchanged program against a dual-era server built on the official SDK v2 server packages
 * (modern, over HTTP and stdio) and against server-everything (legacy).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Task from "@mcp-effect/client/Task"
import { connect } from "@mcp-effect/node/Connect"
import type { Client } from "@mcp-effect/node/Connect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { everythingBin } from "./paths.js"

const peer = path.join(path.dirname(fileURLToPath(import.meta.url)), "peers/dual-era-server.mjs")

const startHttpPeer = () =>
  new Promise<{ readonly url: string; readonly stop: () => void }>((resolve, reject) => {
    const child = spawn(process.execPath, [peer, "http", "0"], { stdio: ["ignore", "pipe", "ignore"] })
    child.once("error", reject)
    child.stdout.on("data", (chunk: Buffer) => {
      const port = /listening (\d+)/.exec(chunk.toString())?.[1]
      if (port !== undefined) resolve({ url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill("SIGKILL") })
    })
  })

/** The peer's request counts by method, read over plain HTTP (`GET /stats`), so reading them sends no MCP request. */
const peerStats = async (url: string) => {
  const response = await fetch(url.replace(/\/mcp$/, "/stats"))
  return ((await response.json()) as { byMethod: Record<string, number> }).byMethod
}
const resetPeerStats = (url: string) => fetch(url.replace(/\/mcp$/, "/stats/reset"), { method: "POST" })

const texts = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.flatMap((block) => {
    const b = block as { type: string; text?: string }
    return b.type === "text" && b.text !== undefined ? [b.text] : []
  }).join("")

/** The host program: the same calls whatever the server's era. */
const session = async (target: string | ReadonlyArray<string>) => {
  const asked: Array<string> = []
  const client = await connect(target, {
    name: "peer",
    elicitationHandler: (params) => {
      asked.push(String(params.message))
      return { confirm: true }
    }
  })
  return { client, asked }
}

const stats = async (client: Client) => {
  const result = await client.callTool("stats", {})
  return (result.structuredContent as { byMethod: Record<string, number> }).byMethod
}

describe("interop: dual-era SDK v2 server", () => {
  it("over HTTP: negotiates 2026-07-28, runs input_required with elicitation, x-mcp-header, cache hints", async () => {
    const server = await startHttpPeer()
    const { client, asked } = await session(server.url)
    try {
      const [handle] = client.servers
      assert.deepStrictEqual([handle!.era, handle!.protocolVersion], ["modern", "2026-07-28"])
      assert.strictEqual(texts(await client.callTool("echo", { message: "modern" })), "modern")

      const deleted = await client.callTool("confirm_delete", { path: "/tmp/x" })
      assert.strictEqual(asked.length, 1)
      assert.match(texts(deleted), /confirm/i)

      const weather = await client.callTool("get_weather", { region: "eu-west-1" })
      assert.strictEqual(
        (weather.structuredContent as { mcpParamRegionHeader: string }).mcpParamRegionHeader,
        "eu-west-1"
      )

      // tools/list is cacheable for 60 s: a second list is served without a request.
      await client.listTools()
      const before = (await stats(client))["tools/list"] ?? 0
      await client.listTools()
      assert.strictEqual((await stats(client))["tools/list"] ?? 0, before)

      // memo://fresh may be kept 60 s, memo://stale (ttlMs 0) is read again every time.
      const first = await client.readResource("memo://fresh")
      const second = await client.readResource("memo://fresh")
      assert.deepStrictEqual(second, first)
      await client.readResource("memo://stale")
      await client.readResource("memo://stale")
      const reads = (await stats(client))["resources/read"] ?? 0
      assert.strictEqual(reads, 3)

      // A subscription on its own POST stream: the changes the server publishes reach it, a
      // list change and an update of the resource it watches.
      const seen: Array<string> = []
      const subscription = await client.listen(
        { toolsListChanged: true, resourceSubscriptions: ["memo://fresh"] },
        (n) =>
          seen.push(n.method === "notifications/resources/updated" ? `${n.method} ${String(n.params?.uri)}` : n.method)
      )
      assert.strictEqual(subscription.acknowledged.toolsListChanged, true)
      assert.deepStrictEqual(subscription.acknowledged.resourceSubscriptions, ["memo://fresh"])
      const arrived = async (count: number) => {
        const deadline = Date.now() + 5_000
        while (seen.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
      }
      await client.callTool("trigger_change", { kind: "tools" })
      await arrived(1)
      await client.callTool("trigger_change", { kind: "resource_updated", uri: "memo://fresh" })
      await arrived(2)
      assert.deepStrictEqual(seen, [
        "notifications/tools/list_changed",
        "notifications/resources/updated memo://fresh"
      ])
      await subscription.close()
    } finally {
      await client.close()
      server.stop()
    }
  })

  it("over stdio: the same program negotiates 2026-07-28", async () => {
    const { client, asked } = await session([process.execPath, peer, "stdio"])
    try {
      assert.strictEqual(client.servers[0]!.era, "modern")
      assert.strictEqual(texts(await client.callTool("echo", { message: "stdio" })), "stdio")
      await client.callTool("confirm_delete", { path: "/tmp/y" })
      assert.strictEqual(asked.length, 1)
      const busy = await client.callTool("busy_once", { job: "j" })
      assert.include(texts(busy), "after retry")
    } finally {
      await client.close()
    }
  })

  it("and the same program speaks the legacy era to server-everything", async () => {
    const { client } = await session([process.execPath, everythingBin, "stdio"])
    try {
      assert.strictEqual(client.servers[0]!.era, "legacy")
      assert.strictEqual(texts(await client.callTool("echo", { message: "legacy" })), "Echo: legacy")
    } finally {
      await client.close()
    }
  })

  describe("server-initiated input on 2026-07-28 (ask_model, long_job)", () => {
    /** A host with a sampling handler that records what it was asked. */
    const samplingHost = async (target: string | ReadonlyArray<string>) => {
      const sampled: Array<Record<string, unknown>> = []
      const client = await connect(target, {
        name: "peer",
        samplingHandler: (params) => {
          sampled.push(params)
          return {
            role: "assistant",
            content: { type: "text", text: "forty-two" },
            model: "host-model",
            stopReason: "endTurn"
          }
        }
      })
      return { client, sampled }
    }

    const assertSampled = (sampled: ReadonlyArray<Record<string, unknown>>, prompt: string) => {
      assert.strictEqual(sampled.length, 1)
      const [params] = sampled
      assert.deepStrictEqual(params!.messages, [{ role: "user", content: { type: "text", text: prompt } }])
      assert.strictEqual(params!.maxTokens, 64)
      assert.match(String(params!.systemPrompt), /test peer's model/)
      assert.deepStrictEqual(params!.modelPreferences, { hints: [{ name: "test-model" }], intelligencePriority: 0.5 })
    }

    it("over HTTP: an input_required sampling/createMessage is answered by the handler and the call completes", async () => {
      const server = await startHttpPeer()
      const { client, sampled } = await samplingHost(server.url)
      try {
        assert.strictEqual(client.servers[0]!.era, "modern")
        await resetPeerStats(server.url)
        const result = await client.callTool("ask_model", { prompt: "What is six times seven?" })
        assert.strictEqual(texts(result), "forty-two")
        assert.deepStrictEqual(result.structuredContent, {
          model: "host-model",
          stopReason: "endTurn",
          text: "forty-two"
        })
        assertSampled(sampled, "What is six times seven?")
        // Two rounds of the same tools/call: the input_required one and the retry carrying the answer.
        assert.strictEqual((await peerStats(server.url))["tools/call"], 2)
      } finally {
        await client.close()
        server.stop()
      }
    })

    it("over stdio: the same sampling round trip", async () => {
      const { client, sampled } = await samplingHost([process.execPath, peer, "stdio"])
      try {
        assert.strictEqual(client.servers[0]!.era, "modern")
        const result = await client.callTool("ask_model", { prompt: "And over stdio?" })
        assert.strictEqual(texts(result), "forty-two")
        assertSampled(sampled, "And over stdio?")
      } finally {
        await client.close()
      }
    })

    /** A host declaring the tasks extension, with an elicitation handler that approves and records. */
    const taskHost = async (target: string | ReadonlyArray<string>) => {
      const asked: Array<Record<string, unknown>> = []
      const client = await connect(target, {
        name: "peer",
        extensions: ["io.modelcontextprotocol/tasks"],
        elicitationHandler: (params) => {
          asked.push(params)
          return { approve: true }
        }
      })
      return { client, asked }
    }

    it("over HTTP: callTool drives a modern task through tasks/get and one tasks/update to its inline result", async () => {
      const server = await startHttpPeer()
      const { client, asked } = await taskHost(server.url)
      try {
        assert.strictEqual(client.servers[0]!.era, "modern")
        await resetPeerStats(server.url)
        const result = await client.callTool("long_job", { job: "nightly" })
        assert.strictEqual(texts(result), "job nightly done (approved)")
        assert.deepStrictEqual(result.structuredContent, { job: "nightly", action: "accept", approved: true })
        // The input request reached the host once, as a form elicitation...
        assert.strictEqual(asked.length, 1)
        assert.strictEqual(asked[0]!.message, "Run job nightly?")
        const counts = await peerStats(server.url)
        // ...and was answered with exactly one tasks/update, although the peer shows the same input
        // request again on the poll after the update (an eventually consistent ack).
        assert.strictEqual(counts["tasks/update"], 1)
        assert.strictEqual(counts["tools/call"], 1)
        // The peer advances one step per poll: input_required, input_required (stale), working, completed.
        assert.strictEqual(counts["tasks/get"], 4)
        assert.strictEqual(counts["tasks/cancel"] ?? 0, 0)
      } finally {
        await client.close()
        server.stop()
      }
    })

    it("over HTTP: without the extension declared, long_job answers at once and no task is created", async () => {
      const server = await startHttpPeer()
      const client = await connect(server.url, { name: "peer" })
      try {
        await resetPeerStats(server.url)
        const result = await client.callTool("long_job", { job: "quick" })
        assert.include(texts(result), "no task")
        const counts = await peerStats(server.url)
        assert.strictEqual(counts["tasks/get"] ?? 0, 0)
        assert.strictEqual(counts["tasks/update"] ?? 0, 0)
      } finally {
        await client.close()
        server.stop()
      }
    })

    it("over HTTP: the Task API — callToolAsTask, updateTask by the host, getTask, waitForTask; cancelTask", async () => {
      const server = await startHttpPeer()
      const client = await connect(server.url, { name: "peer", extensions: ["io.modelcontextprotocol/tasks"] })
      try {
        const task = await client.callToolAsTask("long_job", { job: "manual" }, { ttl: "1 minute" })
        assert.strictEqual(task.status, "working")
        assert.strictEqual(task.ttlMs, 60_000, "the server grants ttlMs")
        const pending = await client.getTask(task)
        assert.isTrue(pending.isInputRequired)
        // No handler here: the host answers the input request itself.
        await client.updateTask(pending, { approve: { action: "accept", content: { approve: true } } })
        const done = await client.waitForTask(Task.Task.fromJSON(JSON.parse(JSON.stringify(task))))
        assert.isTrue(done.isCompleted)
        assert.strictEqual(texts(done.result!), "job manual done (approved)")
        const other = await client.callToolAsTask("long_job", { job: "dropped" })
        await client.cancelTask(other)
        assert.strictEqual((await client.getTask(other)).status, "cancelled")
        const counts = await peerStats(server.url)
        assert.strictEqual(counts["tasks/update"], 1)
        assert.strictEqual(counts["tasks/cancel"], 1)
      } finally {
        await client.close()
        server.stop()
      }
    })

    it("over stdio: the same task, driven to completion", async () => {
      const { client, asked } = await taskHost([process.execPath, peer, "stdio"])
      try {
        const result = await client.callTool("long_job", { job: "stdio" })
        assert.strictEqual(texts(result), "job stdio done (approved)")
        assert.strictEqual(asked.length, 1)
        const counts = await stats(client)
        assert.strictEqual(counts["tasks/update"], 1)
        assert.strictEqual(counts["tasks/get"], 4)
      } finally {
        await client.close()
      }
    })
  })
})
