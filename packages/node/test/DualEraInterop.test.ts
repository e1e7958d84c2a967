/**
 * One unchanged program against a dual-era server built on the official SDK v2 server packages
 * (modern, over HTTP and stdio) and against server-everything (legacy).
 */
import { assert, describe, it } from "@effect/vitest"
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

      // A subscription on its own POST stream: the change the server publishes reaches it.
      const seen: Array<string> = []
      const subscription = await client.listen({ toolsListChanged: true }, (n) => seen.push(n.method))
      assert.strictEqual(subscription.acknowledged.toolsListChanged, true)
      await client.callTool("trigger_change", { kind: "tools" })
      const deadline = Date.now() + 5_000
      while (seen.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
      assert.deepStrictEqual(seen, ["notifications/tools/list_changed"])
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
})
