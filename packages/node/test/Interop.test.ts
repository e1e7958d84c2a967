/**
 * Interop with servers nobody here wrote: the reference `server-everything` and
 * `server-filesystem` packages, over stdio.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as Stdio from "@mcp-effect/client/Stdio"
import { connect } from "@mcp-effect/node/Connect"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { everythingBin, filesystemBin } from "./paths.js"

const everything = NodeMcpClient.layer({
  servers: [Stdio.config({ name: "everything", command: process.execPath, args: [everythingBin, "stdio"] })]
})

const texts = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.flatMap((block) => {
    const b = block as { type: string; text?: string }
    return b.type === "text" && b.text !== undefined ? [b.text] : []
  })

describe("interop: server-everything over stdio", () => {
  layer(everything, { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("negotiates the legacy era and lists the reference tools", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const negotiated = client.servers[0]!.negotiated()!
        assert.strictEqual(negotiated.era, "legacy")
        assert.strictEqual(negotiated.protocolVersion, "2025-11-25")
        const names = (yield* client.listTools()).map((t) => t.name)
        for (const name of ["echo", "get-sum", "get-structured-content", "trigger-long-running-operation"]) {
          assert.include(names, name)
        }
      }))

    it.effect("calls echo and get-sum", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        assert.deepStrictEqual(texts(yield* client.callTool("echo", { message: "hello interop" })), [
          "Echo: hello interop"
        ])
        assert.match(texts(yield* client.callTool("get-sum", { a: 19, b: 23 })).join(""), /\b42\b/)
      }))

    it.effect("keeps structuredContent and the output schema", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const tool = yield* client.findTool("get-structured-content")
        assert.strictEqual(tool.outputSchema?.type, "object")
        assert.strictEqual(tool.annotations?.readOnlyHint, true)
        const result = yield* client.callTool("get-structured-content", { location: "Chicago" })
        const structured = result.structuredContent as Record<string, unknown>
        assert.deepStrictEqual(Object.keys(structured).sort(), ["conditions", "humidity", "temperature"])
      }))

    it.effect("routes progress of trigger-long-running-operation to the call", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const progress: Array<number> = []
        yield* client.callTool("trigger-long-running-operation", { duration: 1, steps: 4 }, {
          onProgress: (p) => progress.push(p.progress)
        })
        assert.deepStrictEqual(progress, [1, 2, 3, 4])
      }))

    it.effect("gets a prompt with arguments", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const prompts = (yield* client.listPrompts()).map((p) => p.name)
        assert.include(prompts, "args-prompt")
        const prompt = yield* client.getPrompt("args-prompt", { city: "Lisbon", state: "Lisboa" })
        const text = JSON.stringify(prompt.messages)
        assert.include(text, "Lisbon")
      }))

    it.effect("reads a resource", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const [first] = yield* client.listResources()
        const read = yield* client.readResource(first!.uri)
        assert.strictEqual(read.contents[0]!.uri, first!.uri)
        const templates = yield* client.listResourceTemplates()
        assert.isAbove(templates.length, 0)
        const dynamic = yield* client.readResource("demo://resource/dynamic/blob/7")
        assert.isTrue("blob" in dynamic.contents[0]!)
      }))

    it.effect("completes a completable prompt argument", () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const result = yield* client.complete({
          ref: { type: "ref/prompt", name: "completable-prompt" },
          argument: { name: "department", value: "E" }
        })
        assert.include(result.completion.values, "Engineering")
      }))
  })
})

describe("interop: resource subscriptions on server-everything (legacy)", () => {
  it("subscribeResource receives notifications/resources/updated", async () => {
    const updates: Array<unknown> = []
    const client = await connect([process.execPath, everythingBin, "stdio"], {
      onNotification: (_server, method, params) => {
        if (method === "notifications/resources/updated") updates.push(params?.uri)
      }
    })
    try {
      const [resource] = await client.listResources()
      await client.subscribeResource(resource!.uri)
      await client.callTool("toggle-subscriber-updates", {})
      const deadline = Date.now() + 15_000
      while (updates.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
      assert.include(updates, resource!.uri)
    } finally {
      await client.close()
    }
  }, 30_000)
})

describe("interop: handlers against server-everything (legacy server requests)", () => {
  it("answers sampling, elicitation (with schema defaults) and roots; log messages arrive", async () => {
    const messages: Array<unknown> = []
    const client = await connect([process.execPath, everythingBin, "stdio"], {
      samplingHandler: () => ({
        role: "assistant",
        content: { type: "text", text: "sampled!" },
        model: "test-model",
        stopReason: "endTurn"
      }),
      elicitationHandler: () => ({ action: "accept", content: { name: "Ada" } }),
      roots: [{ uri: "file:///tmp", name: "tmp" }],
      onNotification: (_server, method, params) => {
        if (method === "notifications/message") messages.push(params?.data)
      }
    })
    try {
      assert.include(
        texts(await client.callTool("trigger-sampling-request", { prompt: "hi", maxTokens: 10 })).join(""),
        "sampled!"
      )
      const elicited = texts(await client.callTool("trigger-elicitation-request", {})).join("")
      assert.include(elicited, "Name: Ada")
      assert.include(elicited, "Favorite Integer: 42")
      assert.include(texts(await client.callTool("get-roots-list", {})).join(""), "file:///tmp")
      await client.callTool("toggle-simulated-logging", {})
      const deadline = Date.now() + 10_000
      while (messages.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
      assert.isAbove(messages.length, 0)
    } finally {
      await client.close()
    }
  }, 30_000)

  it("simulate-research-query runs as a 2025-11-25 task, its elicitation answered, to completion", async () => {
    const client = await connect([process.execPath, everythingBin, "stdio"], {
      // Not server-everything's fallback ("technical"), so the answer provably came from here.
      elicitationHandler: () => ({ action: "accept", content: { interpretation: "historical" } })
    })
    try {
      const report = await client.callTool("simulate-research-query", { topic: "effect systems", ambiguous: true }, {
        timeout: "60 seconds"
      })
      assert.include(texts(report).join(""), "Clarification**: historical")
    } finally {
      await client.close()
    }
  }, 60_000)

  it("the Task API against it: callToolAsTask, getTask, listTasks, waitForTask to completion", async () => {
    const client = await connect([process.execPath, everythingBin, "stdio"], {
      elicitationHandler: () => ({ action: "accept", content: { interpretation: "historical" } })
    })
    try {
      const task = await client.callToolAsTask("simulate-research-query", { topic: "tides", ambiguous: true }, {
        ttl: "5 minutes"
      })
      assert.strictEqual(task.server, client.servers[0]!.name)
      assert.isFalse(task.isTerminal)
      assert.strictEqual((await client.getTask(task)).taskId, task.taskId)
      assert.include((await client.listTasks()).map((t) => t.taskId), task.taskId)
      const done = await client.waitForTask(task, { timeout: "60 seconds" })
      assert.isTrue(done.isCompleted)
      assert.include(texts(done.result!).join(""), "Clarification**: historical")
    } finally {
      await client.close()
    }
  }, 60_000)

  it("server-filesystem started without a directory works from the client's roots", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-effect-roots-"))
    fs.writeFileSync(path.join(dir, "root.txt"), "from a root\n")
    const client = await connect([process.execPath, filesystemBin], { roots: [{ uri: `file://${dir}`, name: "work" }] })
    try {
      let listing = ""
      const deadline = Date.now() + 10_000
      while (!listing.includes("root.txt") && Date.now() < deadline) {
        listing = texts(await client.callTool("list_directory", { path: dir })).join("\n")
        if (!listing.includes("root.txt")) await new Promise((resolve) => setTimeout(resolve, 200))
      }
      assert.include(listing, "[FILE] root.txt")
    } finally {
      await client.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 30_000)
})

describe("interop: server-filesystem over stdio (Promise facade)", () => {
  it("lists a directory, reads a file, and reports an access error as isError", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-effect-fs-"))
    fs.writeFileSync(path.join(dir, "hello.txt"), "hello from the filesystem\n")
    const client = await connect([process.execPath, filesystemBin, dir])
    try {
      const listing = await client.callTool("list_directory", { path: dir })
      assert.include(texts(listing).join("\n"), "[FILE] hello.txt")
      const read = await client.callTool("read_text_file", { path: path.join(dir, "hello.txt") })
      assert.include(texts(read).join(""), "hello from the filesystem")
      const denied = await client.callTool("read_text_file", { path: "/etc/hostname" })
      assert.isTrue(denied.isError)
      assert.include(texts(denied).join(""), "Access denied")
    } finally {
      await client.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
