/**
 * Interop with a server built on the `fastmcp` framework (npm `fastmcp` 4.x; HTTP served by its
 * `mcp-proxy` dependency), over stdio and over HTTP stream (Streamable HTTP) with sessions and
 * stateless: `peers/fastmcp-server.mjs`.
 *
 * Covered on each transport: the handshake (fastmcp speaks the 2025 revisions; the 2026-07-28 probe is
 * refused — over HTTP with 400 `-32000` from mcp-proxy, over stdio with `-32601` — and the client falls
 * back to `initialize`), tools (structured output, progress, a `UserError` as `isError`), prompts,
 * resources and templates, completion (prompt argument by function and by `enum`, resource template
 * argument), and where there is a session, elicitation and log messages (FastMCP sends those outside the
 * request's stream; the client hands a listener their structured `data` as JSON text), and a restart
 * mid-session:
 * - stdio: the server process is killed; the client starts the command again on its next request.
 * - HTTP with sessions: the process is killed and started again on the same port; the old session id
 *   is answered 404 `Session not found`, so the client opens a new session: a read (or a list) is re-sent
 *   on it transparently, a tool call fails once with `SessionExpiredError` (it may have had effects), and
 *   the next one goes through.
 * - stateless HTTP: the next request reaches the new process; there is no session to lose.
 * - legacy HTTP+SSE (mcp-proxy also serves `/sse`, tested as a bonus): the event stream breaks with the
 *   process, so the next request, even a tool call, opens a new stream and session.
 *
 * FastMCP answers an HTTP `initialize` only after about a second (it polls for the client's capabilities
 * ten times, 100 ms apart, before the transport has handled the request), so each new session costs that.
 */
import { assert, describe, it } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import { SessionExpiredError } from "@mcp-effect/client/McpError"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import { connect } from "@mcp-effect/node/Connect"
import type { Client, ConnectOptions } from "@mcp-effect/node/Connect"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll } from "vitest"
import { eventually, freePort, isAlive, startHttpPeer } from "./peerProcess.js"
import type { HttpPeer } from "./peerProcess.js"

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "peers/fastmcp-server.mjs")

const texts = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.flatMap((block) => {
    const b = block as { type: string; text?: string }
    return b.type === "text" && b.text !== undefined ? [b.text] : []
  }).join("")

interface WhoAmI {
  readonly boot: string
  readonly pid: number
  readonly client: string
  readonly sessionId: string
}

const whoami = async (client: Client) => (await client.callTool("whoami", {})).structuredContent as WhoAmI

const clientInfo = { name: "interop-host", version: "1.2.3" }

/** One host, recording what reaches its handlers. */
const host = () => {
  const elicited: Array<Record<string, unknown>> = []
  const logs: Array<unknown> = []
  const options: ConnectOptions = {
    name: "fastmcp",
    clientInfo,
    elicitationHandler: (params) => {
      elicited.push(params)
      return { action: "accept", content: { confirmed: true, note: "fine" } }
    },
    onNotification: (_server, method, params) => {
      if (method === "notifications/message") logs.push(params)
    }
  }
  return { elicited, logs, options }
}

/** The checks that hold on every transport. */
const features = (
  transport: "stdio" | "streamable_http" | "sse",
  session: () => { readonly client: Client; readonly logs: ReadonlyArray<unknown> },
  options: {
    /** One request, one throwaway server session: no initialize reaches it, no stream outlives a request. */
    readonly stateless: boolean
    readonly elicited: () => ReadonlyArray<Record<string, unknown>>
  }
) => {
  it("speaks the 2025 handshake: era, 2025-11-25, the server's info, instructions and capabilities", () => {
    const [handle] = session().client.servers
    assert.deepStrictEqual([handle!.kind, handle!.era, handle!.protocolVersion], [transport, "legacy", "2025-11-25"])
    assert.deepStrictEqual(handle!.serverInfo, { name: "fastmcp-peer", version: "2.0.0" })
    assert.strictEqual(handle!.instructions, "A test peer built with fastmcp.")
    assert.deepStrictEqual(handle!.capabilities, {
      tools: {},
      resources: { listChanged: true, subscribe: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {}
    })
  })

  it("lists the tools with their schemas and calls them; the server saw the client's identity", async () => {
    const { client } = session()
    const tools = await client.listTools()
    assert.deepStrictEqual(tools.map((t) => t.name).sort(), [
      "add",
      "confirm",
      "count",
      "echo",
      "fail",
      "log",
      "whoami"
    ])
    const add = tools.find((t) => t.name === "add")!
    assert.deepStrictEqual(add.inputSchema.required, ["a", "b"])
    assert.deepStrictEqual(add.outputSchema?.required, ["sum"])
    assert.strictEqual(texts(await client.callTool("echo", { message: transport })), `fastmcp says: ${transport}`)
    const sum = await client.callTool("add", { a: 19, b: 23 })
    assert.deepStrictEqual(sum.structuredContent, { sum: 42 })
    assert.deepStrictEqual(JSON.parse(texts(sum)), { sum: 42 })
    // Stateless, the session that runs the tool never saw an initialize.
    assert.strictEqual((await whoami(client)).client, options.stateless ? "" : clientInfo.name)
  })

  it("routes progress notifications to the call", async () => {
    const progress: Array<[number, number | undefined]> = []
    const result = await session().client.callTool("count", { to: 4 }, {
      onProgress: (p) => progress.push([p.progress, p.total])
    })
    assert.strictEqual(texts(result), "counted to 4")
    assert.deepStrictEqual(progress, [[1, 4], [2, 4], [3, 4], [4, 4]])
  })

  // FastMCP sends log messages outside the request's stream (no related request): a stateless server
  // has no stream to put them on.
  if (!options.stateless) {
    it("routes log messages to the listener, structured data as JSON text", async () => {
      const { client, logs } = session()
      const before = logs.length
      // The tool's message, not the last one: the proxy in front of an SSE server logs its own
      // connection events on the same channel, at any time.
      const sent = () =>
        logs.slice(before).find((log) => JSON.stringify(log).includes(`hello from ${transport}`)) as
          | { readonly data: string }
          | undefined
      assert.strictEqual(texts(await client.callTool("log", { text: `hello from ${transport}` })), "logged")
      assert.isTrue(await eventually(() => sent() !== undefined))
      const { data, ...rest } = sent()!
      assert.deepStrictEqual(rest, { level: "info" })
      assert.deepStrictEqual(JSON.parse(data), { message: `hello from ${transport}`, context: { from: "fastmcp" } })
    })
  }

  it("a UserError is a tool result with isError", async () => {
    const failed = await session().client.callTool("fail", {})
    assert.isTrue(failed.isError)
    assert.strictEqual(texts(failed), "this tool always fails")
  })

  it("lists and gets a prompt", async () => {
    const { client } = session()
    const [greet] = await client.listPrompts()
    assert.strictEqual(greet!.name, "greet")
    assert.deepStrictEqual(greet!.arguments?.map((a) => [a.name, a.required ?? false]), [["name", true], [
      "mood",
      false
    ]])
    const prompt = await client.getPrompt("greet", { name: "Grace", mood: "sleepy" })
    assert.deepStrictEqual(prompt.messages, [
      { role: "user", content: { type: "text", text: "Say hello to Grace in a sleepy way." } }
    ])
  })

  it("lists and reads resources and a resource template", async () => {
    const { client } = session()
    assert.deepStrictEqual((await client.listResources()).map((r) => [r.uri, r.name, r.mimeType]), [
      ["memo://readme", "readme", "text/plain"]
    ])
    const readme = await client.readResource("memo://readme")
    // FastMCP adds the resource's `name` to its contents; the client keeps what the server sent.
    assert.deepStrictEqual(readme.contents as ReadonlyArray<unknown>, [
      { uri: "memo://readme", name: "readme", mimeType: "text/plain", text: "fastmcp readme" }
    ])
    assert.deepStrictEqual((await client.listResourceTemplates()).map((t) => [t.uriTemplate, t.name]), [
      ["memo://notes/{id}", "note"]
    ])
    const note = await client.readResource("memo://notes/beta")
    assert.strictEqual(note.contents[0]!.uri, "memo://notes/beta")
    assert.strictEqual(JSON.parse((note.contents[0] as { text: string }).text).id, "beta")
  })

  it("completes a prompt argument (by function and by enum) and a resource template argument", async () => {
    const { client } = session()
    const byFunction = await client.complete({
      ref: { type: "ref/prompt", name: "greet" },
      argument: { name: "name", value: "a" }
    })
    assert.deepStrictEqual(byFunction.completion.values, ["Ada", "Alan"])
    const byEnum = await client.complete({
      ref: { type: "ref/prompt", name: "greet" },
      argument: { name: "mood", value: "s" }
    })
    assert.deepStrictEqual(byEnum.completion.values, ["sleepy"])
    const template = await client.complete({
      ref: { type: "ref/resource", uri: "memo://notes/{id}" },
      argument: { name: "id", value: "g" }
    })
    assert.deepStrictEqual(template.completion.values, ["gamma"])
  })

  if (!options.stateless) {
    it("answers the server's elicitation/create through the handler", async () => {
      const before = options.elicited().length
      const result = await session().client.callTool("confirm", { action: "ship" })
      assert.strictEqual(texts(result), "accept: {\"confirmed\":true,\"note\":\"fine\"}")
      assert.strictEqual(options.elicited().length, before + 1)
      const asked = options.elicited().at(-1)!
      assert.strictEqual(asked.message, "Really ship?")
      assert.deepStrictEqual((asked.requestedSchema as { required: Array<string> }).required, ["confirmed"])
    })
  }
}

describe("interop: fastmcp over stdio", () => {
  let client: Client
  const recorded = host()

  beforeAll(async () => {
    client = await connect([process.execPath, script, "stdio"], recorded.options)
  }, 60_000)

  afterAll(async () => {
    await client?.close()
  })

  features("stdio", () => ({ client, logs: recorded.logs }), { stateless: false, elicited: () => recorded.elicited })

  it("a killed server process is started again by the client on its next request", async () => {
    const before = await whoami(client)
    process.kill(before.pid, "SIGKILL")
    assert.isTrue(await eventually(() => !isAlive(before.pid)))
    const after = await whoami(client)
    assert.notStrictEqual(after.pid, before.pid)
    assert.notStrictEqual(after.boot, before.boot)
    assert.isTrue(isAlive(after.pid))
    // The new process was initialized again: it knows the client, and asks it for input.
    assert.strictEqual(after.client, clientInfo.name)
    assert.strictEqual(
      texts(await client.callTool("confirm", { action: "resume" })),
      "accept: {\"confirmed\":true,\"note\":\"fine\"}"
    )
  })
})

for (const mode of ["sessions", "stateless"] as const) {
  describe(`interop: fastmcp over HTTP stream (${mode})`, () => {
    let peer: HttpPeer
    let client: Client
    const recorded = host()

    beforeAll(async () => {
      const port = await freePort()
      peer = await startHttpPeer(
        (p) => [script, "http", String(p), ...(mode === "stateless" ? ["stateless"] : [])],
        port
      )
      client = await connect(`${peer.origin}/mcp`, recorded.options)
    }, 60_000)

    afterAll(async () => {
      await client?.close()
      await peer?.kill()
    })

    features("streamable_http", () => ({ client, logs: recorded.logs }), {
      stateless: mode === "stateless",
      elicited: () => recorded.elicited
    })

    if (mode === "sessions") {
      it("a restarted server: the old session is answered 404 and the client opens a new one", async () => {
        const before = await whoami(client)
        assert.isAbove(before.sessionId.length, 0)
        await peer.kill()
        await peer.start()
        // A read is re-sent on the new session without the caller seeing the expiry...
        const note = await client.readResource("memo://notes/alpha")
        const after = await whoami(client)
        assert.deepStrictEqual(JSON.parse((note.contents[0] as { text: string }).text), {
          id: "alpha",
          boot: after.boot
        })
        assert.notStrictEqual(after.boot, before.boot)
        assert.notStrictEqual(after.sessionId, before.sessionId)
        assert.strictEqual(after.client, clientInfo.name)
        // ...a tool call is not: it fails once, and the next call opens a new session.
        await peer.kill()
        await peer.start()
        const error = await client.callTool("echo", { message: "lost" }).then(() => undefined, (e: unknown) => e)
        assert.instanceOf(error, SessionExpiredError)
        const third = await whoami(client)
        assert.notStrictEqual(third.boot, after.boot)
        assert.notStrictEqual(third.sessionId, after.sessionId)
        // The new session is complete: it asks for input again, and its GET stream carries its log messages.
        assert.strictEqual(
          texts(await client.callTool("confirm", { action: "resume" })),
          "accept: {\"confirmed\":true,\"note\":\"fine\"}"
        )
        const logged = recorded.logs.length
        await client.callTool("log", { text: "after the restart" })
        assert.isTrue(await eventually(() => recorded.logs.length > logged))
        assert.include((recorded.logs.at(-1) as { data: string }).data, "after the restart")
      })
    } else {
      it("a restarted server serves the next request; there is no session to lose", async () => {
        const before = await whoami(client)
        assert.strictEqual(before.sessionId, "")
        await peer.kill()
        await peer.start()
        const after = await whoami(client)
        assert.notStrictEqual(after.boot, before.boot)
        assert.strictEqual(after.pid, peer.pid())
        assert.strictEqual(texts(await client.callTool("echo", { message: "still here" })), "fastmcp says: still here")
      })
    }
  })
}

describe("interop: fastmcp over legacy HTTP+SSE (mcp-proxy's /sse)", () => {
  let peer: HttpPeer
  let client: Client
  const recorded = host()

  beforeAll(async () => {
    peer = await startHttpPeer((p) => [script, "http", String(p)], await freePort())
    client = await connect(`${peer.origin}/sse`, recorded.options)
  }, 60_000)

  afterAll(async () => {
    await client?.close()
    await peer?.kill()
  })

  features("sse", () => ({ client, logs: recorded.logs }), { stateless: false, elicited: () => recorded.elicited })

  it("a restarted server: the dropped stream ends the session and the next request opens a new one", async () => {
    const before = await whoami(client)
    await peer.kill()
    await peer.start()
    // The event stream broke when the process died, so the client knew before it sent anything: even
    // a tool call goes straight to a new stream and handshake.
    const after = await whoami(client)
    assert.notStrictEqual(after.boot, before.boot)
    assert.strictEqual(after.pid, peer.pid())
    assert.strictEqual(after.client, clientInfo.name)
  })
})

describe("interop: fastmcp over HTTP stream, through the Effect API", () => {
  it.live("recovers from a restart with catchTag(\"SessionExpiredError\") and a retry", () =>
    Effect.gen(function*() {
      const peer = yield* Effect.acquireRelease(
        Effect.promise(async () => startHttpPeer((p) => [script, "http", String(p)], await freePort())),
        (peer) => Effect.promise(() => peer.kill())
      )
      const layer = NodeMcpClient.layer({
        clientInfo,
        servers: [StreamableHttp.config({ name: "fastmcp", url: `${peer.origin}/mcp` })]
      })
      yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const boot = (result: { readonly structuredContent?: unknown }) => (result.structuredContent as WhoAmI).boot
        const first = boot(yield* client.callTool("whoami", {}))
        yield* Effect.promise(async () => {
          await peer.kill()
          await peer.start()
        })
        const expired: Array<string> = []
        const second = yield* client.callTool("whoami", {}).pipe(
          Effect.catchTag("SessionExpiredError", (error) => {
            expired.push(error.method)
            return client.callTool("whoami", {})
          }),
          Effect.map(boot)
        )
        assert.deepStrictEqual(expired, ["tools/call"])
        assert.notStrictEqual(second, first)
      }).pipe(Effect.provide(Layer.fresh(layer)))
    }).pipe(Effect.scoped))
})
