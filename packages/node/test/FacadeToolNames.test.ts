/**
 * Tool names across servers (issue #36, point 2) through the Promise facade and configuration
 * files, and `.mcpb` bundles read by `connectFromConfig`.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigError, ToolNameCollisionError, ToolNotFoundError } from "@mcp-effect/client/McpError"
import { connect, connectFromConfig } from "@mcp-effect/node/Connect"
import * as Fflate from "fflate"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll } from "vitest"
import { fakeServerBin } from "./paths.js"

const commandLine = `${JSON.stringify(process.execPath)} ${JSON.stringify(fakeServerBin)}`
const VALID = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/

const made: Array<string> = []
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-names-"))
  made.push(dir)
  return dir
}

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) =>
  (result.content[0] as { readonly text: string }).text

describe("the facade: tool names across servers", () => {
  it("toolPrefix, toolNames and toolNameSeparator: shown names in, the server's names on the wire", async () => {
    const client = await connect(commandLine, {
      name: "demo",
      toolPrefix: true,
      toolNames: { echo: "say" },
      toolNameSeparator: "-"
    })
    try {
      const tools = await client.listTools()
      assert.includeMembers(tools.map((t) => t.name), ["demo-say", "demo-add"])
      assert.strictEqual(tools.find((t) => t.name === "demo-say")?.originalName, "echo")
      assert.strictEqual(textOf(await client.callTool("demo-say", { message: "hi" })), "hi")
      assert.instanceOf(await client.callTool("say", { message: "hi" }).catch((e: unknown) => e), Error)
      for (const tool of await client.toOpenAITools()) assert.match(tool.function.name, VALID)
    } finally {
      await client.close()
    }
  })

  it("toolCollisions: \"prefix\" across two targets, and \"error\" naming both servers", async () => {
    const targets = [{ name: "one", target: commandLine }, { name: "two", target: `${commandLine} --era dual` }]
    const client = await connect(targets, { toolCollisions: "prefix" })
    try {
      const names = (await client.listTools()).map((t) => t.name)
      assert.includeMembers(names, ["one__echo", "two__echo", "publish"], "publish is only two's")
      assert.notInclude(names, "echo")
      assert.strictEqual(textOf(await client.callTool("two__echo", { message: "hi" })), "hi")
      assert.instanceOf(await client.callTool("echo", {}).catch((e: unknown) => e), ToolNotFoundError)
    } finally {
      await client.close()
    }
    const strict = await connect(targets, { toolCollisions: "error" })
    try {
      const error = await strict.listTools().catch((e: unknown) => e)
      assert.instanceOf(error, ToolNameCollisionError)
      assert.deepStrictEqual((error as ToolNameCollisionError).servers, ["one", "two"])
    } finally {
      await strict.close()
    }
  })

  it("connectFromConfig: toolPrefix and toolNames from the file, toolCollisions from the options", async () => {
    const file = path.join(tempDir(), "mcp.json")
    const server = { command: process.execPath, args: [fakeServerBin] }
    fs.writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          github: { ...server, toolPrefix: "gh", toolNames: { add: "sum" } },
          files: server
        }
      })
    )
    const client = await connectFromConfig(file, { toolCollisions: "first" })
    try {
      const tools = await client.listTools()
      assert.includeMembers(tools.map((t) => `${t.server}:${t.name}`), ["github:gh__sum", "files:echo", "files:add"])
      const sum = await client.callTool("gh__sum", { a: 2, b: 3 })
      assert.deepStrictEqual(sum.structuredContent, { sum: 5 })
    } finally {
      await client.close()
    }
  })
})

const manifest = {
  manifest_version: "0.3",
  name: "bundled",
  version: "1.0.0",
  server: {
    type: "node",
    entry_point: "server/index.mjs",
    mcp_config: {
      command: process.execPath,
      args: ["${__dirname}/server/index.mjs"],
      env: { DEMO_API_KEY: "${user_config.api_key}" }
    }
  },
  user_config: { api_key: { type: "string", title: "API key", sensitive: true, required: true } }
}

/** A bundle as `mcpb pack` writes it: its manifest and a server that runs the fake server. */
const bundle = () => {
  const dir = tempDir()
  const file = path.join(dir, "demo.mcpb")
  const files = {
    "manifest.json": JSON.stringify(manifest),
    "server/index.mjs": `await import(${JSON.stringify(pathToFileURL(fakeServerBin).href)})\n`
  }
  fs.writeFileSync(
    file,
    Fflate.zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, Fflate.strToU8(v)])))
  )
  return { file, bundleDirectory: path.join(dir, "unpacked") }
}

describe("the facade: connectFromConfig reads .mcpb bundles", () => {
  it("answers user_config from the options (values or a function) and launches the bundle's server", async () => {
    const { bundleDirectory, file } = bundle()
    const client = await connectFromConfig(file, { bundleDirectory, userConfig: { api_key: "secret" } })
    try {
      assert.deepStrictEqual(client.servers.map((s) => s.name), ["bundled"])
      const sum = await client.callTool("add", { a: 2, b: 40 })
      assert.deepStrictEqual(sum.structuredContent, { sum: 42 })
    } finally {
      await client.close()
    }
    const asked: Array<string> = []
    const again = await connectFromConfig(file, {
      bundleDirectory,
      userConfig: async (fields) => {
        asked.push(...fields.map((f) => f.key))
        return { api_key: "secret" }
      }
    })
    await again.close()
    assert.deepStrictEqual(asked, ["api_key"])
  })

  it("a required user_config without an answer rejects with ConfigError, nothing launched", async () => {
    const { bundleDirectory, file } = bundle()
    const error = await connectFromConfig(file, { bundleDirectory }).catch((e: unknown) => e)
    assert.instanceOf(error, ConfigError)
    assert.match((error as ConfigError).message, /api_key/)
  })
})
