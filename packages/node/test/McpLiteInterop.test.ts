/**
 * Interop with a server built on `mcp-lite` (npm `mcp-lite`, its own protocol code rather than the
 * official SDK), over Streamable HTTP, stateless and stateful: `peers/mcp-lite-server.mjs`, served by
 * Hono on `node:http` (`@hono/node-server`).
 *
 * What mcp-lite offers, and so what is tested: tools (plain JSON Schema and Zod schemas, structured
 * output, progress), prompts with arguments, resources and resource templates, and, stateful only, a
 * session with server → client requests (elicitation). It has no stdio transport, and no completion:
 * `completion/complete` is registered as "Not implemented" (`-32603`) and no `completions` capability is
 * declared, so the client refuses `complete` without asking (tested). It speaks 2025-06-18 and 2025-03-26
 * and answers a newer `initialize` with 2025-03-26; its answer to the 2026-07-28 `server/discover` probe
 * is HTTP 400 `-32602 "Protocol version mismatch"` (tested: the client falls back to `initialize`). A tool
 * handler that throws becomes a JSON-RPC error, not an `isError` result. Its GET handler accepts only a
 * 2025-06-18 `MCP-Protocol-Version`, so on 2025-03-26 the client's GET stream is answered 400; the client
 * retries it with backoff and gives up after ten failures (nothing here needs that stream).
 *
 * Restart: the server process is killed and started again on the same port. Stateless, the next request
 * simply reaches the new process. Stateful, mcp-lite does not answer an unknown `Mcp-Session-Id` on a POST
 * with 404 (it serves the request as if the session existed, without its stored capabilities), so the
 * client has no signal to start a new session and goes on with the old id; requests work, elicitation no
 * longer does (the new process does not know the client declared it).
 */
import { assert, describe, it } from "@effect/vitest"
import { CapabilityError, ServerError } from "@mcp-effect/client/McpError"
import { connect } from "@mcp-effect/node/Connect"
import type { Client } from "@mcp-effect/node/Connect"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll } from "vitest"
import { startHttpPeer } from "./peerProcess.js"
import type { HttpPeer } from "./peerProcess.js"

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "peers/mcp-lite-server.mjs")

interface Stats {
  readonly boot: string
  readonly pid: number
  readonly byMethod: Record<string, number>
  readonly sessions: ReadonlyArray<string | null>
  readonly http: Record<string, number>
}

/** The peer's own view of the traffic, read over plain HTTP (no MCP request). */
const stats = async (peer: HttpPeer): Promise<Stats> => (await fetch(`${peer.origin}/stats`)).json() as Promise<Stats>

const texts = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.flatMap((block) => {
    const b = block as { type: string; text?: string }
    return b.type === "text" && b.text !== undefined ? [b.text] : []
  }).join("")

const clientInfo = { name: "interop-host", version: "1.2.3" }

for (const mode of ["stateless", "stateful"] as const) {
  describe(`interop: mcp-lite over Streamable HTTP (${mode})`, () => {
    let peer: HttpPeer
    let client: Client
    const elicited: Array<Record<string, unknown>> = []

    beforeAll(async () => {
      peer = await startHttpPeer((port) => [script, mode, String(port)])
      client = await connect(`${peer.origin}/mcp`, {
        name: "mcp-lite",
        clientInfo,
        elicitationHandler: (params) => {
          elicited.push(params)
          return { action: "accept", content: { confirmed: true, note: "go ahead" } }
        }
      })
    }, 60_000)

    afterAll(async () => {
      await client?.close()
      await peer?.kill()
    })

    it("falls back from the refused 2026-07-28 probe to initialize and is answered 2025-03-26", async () => {
      const [handle] = client.servers
      assert.deepStrictEqual(
        [handle!.kind, handle!.era, handle!.protocolVersion],
        ["streamable_http", "legacy", "2025-03-26"]
      )
      assert.deepStrictEqual(handle!.serverInfo, { name: "mcp-lite-peer", version: "1.0.0" })
      assert.deepStrictEqual(handle!.capabilities, {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { listChanged: true }
      })
      const seen = await stats(peer)
      assert.strictEqual(seen.byMethod["initialize"], 1)
      // The probe was sent and refused before dispatch, at mcp-lite's header check.
      assert.strictEqual(seen.http["POST 400"], 1)
      assert.strictEqual(seen.byMethod["server/discover"], undefined)
      // Stateful: every POST after initialize carries the session id the server issued.
      const afterInitialize = seen.sessions.slice(2)
      if (mode === "stateful") {
        assert.isAbove(afterInitialize.length, 0)
        assert.isTrue(afterInitialize.every((id) => typeof id === "string" && id === afterInitialize[0]))
      } else {
        assert.isTrue(seen.sessions.every((id) => id === null))
      }
    })

    it("lists the tools with their schemas and calls them", async () => {
      const tools = await client.listTools()
      assert.deepStrictEqual(tools.map((t) => t.name).sort(), ["add", "confirm", "count", "echo", "fail", "whoami"])
      const add = tools.find((t) => t.name === "add")!
      assert.deepStrictEqual(add.inputSchema.required, ["a", "b"])
      assert.strictEqual(add.outputSchema?.type, "object")
      assert.strictEqual(texts(await client.callTool("echo", { message: "over http" })), "mcp-lite says: over http")
      const sum = await client.callTool("add", { a: 40, b: 2 })
      assert.strictEqual(texts(sum), "42")
      assert.deepStrictEqual(sum.structuredContent, { sum: 42 })
    })

    it("routes progress notifications of a tool call to the caller", async () => {
      const progress: Array<[number, number | undefined, string | undefined]> = []
      const result = await client.callTool("count", { to: 3 }, {
        onProgress: (p) => progress.push([p.progress, p.total, p.message])
      })
      assert.strictEqual(texts(result), "counted to 3")
      assert.deepStrictEqual(progress, [[1, 3, "step 1"], [2, 3, "step 2"], [3, 3, "step 3"]])
    })

    it("a tool whose handler throws is a JSON-RPC error (no isError result from mcp-lite): a ServerError", async () => {
      const error = await client.callTool("fail", {}).then(() => undefined, (e: unknown) => e)
      assert.instanceOf(error, ServerError)
      assert.deepStrictEqual([error.code, error.message], [-32603, "Internal error"])
      assert.strictEqual((error.data as { message: string }).message, "this tool always fails")
    })

    it("lists and gets a prompt with arguments", async () => {
      const [greet] = await client.listPrompts()
      assert.strictEqual(greet!.name, "greet")
      assert.deepStrictEqual(
        greet!.arguments?.map((a) => [a.name, a.required ?? false]),
        [["name", true], ["mood", false]]
      )
      const prompt = await client.getPrompt("greet", { name: "Ada", mood: "happy" })
      assert.deepStrictEqual(prompt.messages, [
        { role: "user", content: { type: "text", text: "Say hello to Ada in a happy way." } }
      ])
    })

    it("lists and reads resources and a resource template", async () => {
      const resources = await client.listResources()
      assert.deepStrictEqual(resources.map((r) => [r.uri, r.name, r.mimeType]), [
        ["memo://readme", "readme", "text/plain"]
      ])
      const readme = await client.readResource("memo://readme")
      assert.deepStrictEqual(readme.contents.map((c) => "text" in c ? c.text : undefined), ["mcp-lite readme"])
      const templates = await client.listResourceTemplates()
      assert.deepStrictEqual(templates.map((t) => t.uriTemplate), ["memo://notes/{id}"])
      const note = await client.readResource("memo://notes/42")
      const [content] = note.contents
      assert.strictEqual(content!.uri, "memo://notes/42")
      assert.strictEqual(JSON.parse((content as { text: string }).text).id, "42")
    })

    it("completion is not offered: the client refuses complete without sending it", async () => {
      const error = await client.complete({
        ref: { type: "ref/prompt", name: "greet" },
        argument: { name: "name", value: "A" }
      }).then(() => undefined, (e: unknown) => e)
      assert.instanceOf(error, CapabilityError)
      assert.strictEqual((await stats(peer)).byMethod["completion/complete"], undefined)
    })

    if (mode === "stateful") {
      it("answers the server's elicitation/create through the handler", async () => {
        const before = elicited.length
        const result = await client.callTool("confirm", { action: "deploy" })
        assert.strictEqual(texts(result), "accept: {\"confirmed\":true,\"note\":\"go ahead\"}")
        assert.strictEqual(elicited.length, before + 1)
        assert.strictEqual(elicited.at(-1)!.message, "Really deploy?")
      })
    }

    it("a server killed and started again on the same port serves the next request", async () => {
      const before = (await client.callTool("whoami", {})).structuredContent as { boot: string; pid: number }
      assert.strictEqual(before.pid, peer.pid())
      const session = (await stats(peer)).sessions.at(-1) ?? null
      await peer.kill()
      await peer.start()
      const after = (await client.callTool("whoami", {})).structuredContent as { boot: string; pid: number }
      assert.notStrictEqual(after.boot, before.boot)
      assert.strictEqual(after.pid, peer.pid())
      const note = await client.readResource("memo://notes/7")
      assert.deepStrictEqual(JSON.parse((note.contents[0] as { text: string }).text), { id: "7", boot: after.boot })
      const seen = await stats(peer)
      // No new handshake: stateless there is none to redo, stateful the server gave no sign (below).
      assert.deepStrictEqual(seen.byMethod, { "tools/call": 1, "resources/read": 1 })
      if (mode === "stateless") {
        assert.deepStrictEqual(seen.sessions, [null, null])
      } else {
        // The new process served the old session id it never issued (no 404), and without the session's
        // stored capabilities it does not know the client accepts elicitation.
        assert.isString(session)
        assert.deepStrictEqual(seen.sessions, [session, session])
        const confirm = await client.callTool("confirm", { action: "retry" })
        assert.isTrue(confirm.isError)
        assert.strictEqual(texts(confirm), "elicitation unavailable")
      }
    })
  })
}
