import { assert, describe, it } from "@effect/vitest"
import type * as McpBundle from "@mcp-effect/client/McpBundle"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as NodeChildProcess from "@mcp-effect/node/NodeChildProcess"
import * as NodeMcpBundle from "@mcp-effect/node/NodeMcpBundle"
import * as UndiciHttpClient from "@mcp-effect/node/UndiciHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fflate from "fflate"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll } from "vitest"
import { fakeServerBin } from "./paths.js"

const manifest = {
  manifest_version: "0.3",
  name: "demo",
  version: "1.0.0",
  server: {
    type: "node",
    entry_point: "server/index.mjs",
    mcp_config: {
      command: process.execPath,
      args: ["${__dirname}/server/index.mjs", "--roots", "${user_config.roots}"],
      env: { DEMO_API_KEY: "${user_config.api_key}", DEMO_HOME: "${HOME}" }
    }
  },
  user_config: {
    api_key: { type: "string", title: "API key", sensitive: true, required: true },
    roots: { type: "directory", title: "Folders", multiple: true, default: ["/tmp"] }
  }
}

const made: Array<string> = []
afterAll(() => made.forEach((dir) => Fs.rmSync(dir, { recursive: true, force: true })))

/** A bundle as `mcpb pack` writes it: the manifest and the server's files, zipped. */
const bundle = (files: Record<string, string>) => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "mcpb-test-"))
  made.push(dir)
  const path = Path.join(dir, "demo.mcpb")
  Fs.writeFileSync(
    path,
    Fflate.zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, Fflate.strToU8(v)])))
  )
  return { dir, path, unpackTo: Path.join(dir, "unpacked") }
}

const demoBundle = () =>
  bundle({
    "manifest.json": JSON.stringify(manifest),
    "server/index.mjs": `await import(${JSON.stringify(pathToFileURL(fakeServerBin).href)})\n`
  })

describe("NodeMcpBundle", () => {
  it.scopedLive("unpacks a bundle, asks for its user_config, and launches its server", () =>
    Effect.gen(function*() {
      const { path, unpackTo } = demoBundle()
      const asked: Array<ReadonlyArray<McpBundle.UserConfigField>> = []
      const options: NodeMcpBundle.Options = {
        directory: unpackTo,
        userConfig: (fields) => Effect.sync(() => (asked.push(fields), { api_key: "secret" }))
      }
      const entry = yield* NodeMcpBundle.loadEntry(path, options)
      assert.deepStrictEqual(asked[0]!.map((f) => [f.key, f.required, f.sensitive]), [
        ["api_key", true, true],
        ["roots", false, false]
      ])
      const directory = entry.cwd!
      assert.strictEqual(Path.dirname(directory), Path.resolve(unpackTo))
      assert.deepStrictEqual(entry.args, [`${directory}/server/index.mjs`, "--roots", "/tmp"])
      assert.deepStrictEqual(entry.env, { DEMO_API_KEY: "secret", DEMO_HOME: Os.homedir() })
      const config = yield* NodeMcpBundle.load(path, options)
      const connection = yield* ServerConnection.make(config, {
        clientInfo: { name: "test", version: "1" },
        onNotification: () => {}
      })
      const result = yield* connection.callTool("add", { a: 2, b: 40 })
      assert.deepStrictEqual(result.structuredContent, { sum: 42 })
    }).pipe(Effect.provide(Layer.merge(NodeChildProcess.layer, UndiciHttpClient.layer))))

  it.effect("a required user_config without an answer, and a wrong answer, are reported, not launched", () =>
    Effect.gen(function*() {
      const { path, unpackTo } = demoBundle()
      const missing = yield* Effect.flip(NodeMcpBundle.loadEntry(path, { directory: unpackTo }))
      assert.include(missing.message, "user_config.api_key (API key): required, and not given")
      const wrong = yield* Effect.flip(
        NodeMcpBundle.loadEntry(path, { directory: unpackTo, userConfig: () => Effect.succeed({ api_key: 3 }) })
      )
      assert.include(wrong.message, "user_config.api_key (API key): expected a string")
    }))

  it.effect("refuses an entry that would land outside the bundle's folder, a file that is not a zip, a bomb", () =>
    Effect.gen(function*() {
      const evil = bundle({ "manifest.json": JSON.stringify(manifest), "../escape.txt": "x" })
      const error = yield* Effect.flip(NodeMcpBundle.unpack(evil.path, evil.unpackTo))
      assert.include(error.message, "points outside the bundle")
      assert.isFalse(Fs.existsSync(Path.join(evil.unpackTo, "..", "escape.txt")))
      const notZip = Path.join(evil.dir, "text.mcpb")
      Fs.writeFileSync(notZip, "hello")
      assert.include((yield* Effect.flip(NodeMcpBundle.unpack(notZip, evil.unpackTo))).message, "cannot unzip it")
      const big = bundle({ "manifest.json": JSON.stringify(manifest), "data.bin": "x".repeat(10_000) })
      const bomb = yield* Effect.flip(NodeMcpBundle.unpack(big.path, big.unpackTo, 5_000))
      assert.include(bomb.message, "more than 5000 bytes")
      assert.isFalse(Fs.existsSync(big.unpackTo))
    }))

  it.effect("an unchanged bundle is unpacked once", () =>
    Effect.gen(function*() {
      const { path, unpackTo } = demoBundle()
      const first = yield* NodeMcpBundle.unpack(path, unpackTo)
      Fs.writeFileSync(Path.join(first.directory, "marker"), "kept")
      const second = yield* NodeMcpBundle.unpack(path, unpackTo)
      assert.strictEqual(second.directory, first.directory)
      assert.isTrue(Fs.existsSync(Path.join(second.directory, "marker")))
      assert.strictEqual(second.manifest.name, "demo")
    }))
})
