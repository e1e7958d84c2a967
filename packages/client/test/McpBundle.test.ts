import { assert, describe, it } from "@effect/vitest"
import * as McpBundle from "@mcp-effect/client/McpBundle"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const fixture = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "fixtures", "mcpb", "manifest.json")

const manifest = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    manifest_version: "0.3",
    name: "files",
    version: "2.1.0",
    server: {
      type: "node",
      entry_point: "server/index.js",
      mcp_config: {
        command: "node",
        args: ["${__dirname}${/}server${/}index.js", "${user_config.roots}", "--depth=${user_config.depth}"],
        env: { FILES_TOKEN: "${user_config.token}", OUT: "${DOWNLOADS}" },
        platform_overrides: { win32: { command: "node.exe" } }
      }
    },
    user_config: {
      roots: { type: "directory", title: "Folders", multiple: true, required: true },
      depth: { type: "number", title: "Depth", default: 2, min: 1, max: 5 },
      token: { type: "string", title: "Token", sensitive: true }
    },
    ...overrides
  })

const launch = (text: string, values: Record<string, McpBundle.UserConfigValue>, platform = "linux") =>
  Effect.flatMap(
    McpBundle.parseManifest(text),
    (parsed) => McpBundle.toEntry(parsed, { directory: "/b/files", home: "/home/ada", platform, values })
  )

describe("McpBundle", () => {
  it.effect("a manifest as `mcpb init` writes it: its questions, and the launch with the answers", () =>
    Effect.gen(function*() {
      const parsed = yield* McpBundle.parseManifest(Fs.readFileSync(fixture, "utf8"))
      assert.deepInclude(parsed, { name: "weather", version: "1.2.0", displayName: "Weather" })
      assert.deepStrictEqual(parsed.platforms, ["darwin", "win32", "linux"])
      assert.deepStrictEqual(parsed.userConfig.map((field) => [field.key, field.title, field.required]), [
        ["api_key", "API key", true],
        ["units", "Units", false]
      ])
      const entry = yield* McpBundle.toEntry(parsed, {
        directory: "/b/weather",
        home: "/home/ada",
        platform: "linux",
        values: { api_key: "k" }
      })
      assert.deepInclude(entry, {
        name: "weather",
        type: "stdio",
        command: "node",
        args: ["/b/weather/server/index.js"],
        env: { WEATHER_API_KEY: "k", WEATHER_UNITS: "metric", WEATHER_CACHE: "/home/ada/.cache/weather" }
      })
    }))

  it.effect("reads the manifest's questions", () =>
    Effect.gen(function*() {
      const parsed = yield* McpBundle.parseManifest(manifest())
      assert.deepStrictEqual(parsed.userConfig.map((f) => [f.key, f.type, f.required, f.multiple, f.sensitive]), [
        ["roots", "directory", true, true, false],
        ["depth", "number", false, false, false],
        ["token", "string", false, false, true]
      ])
    }))

  it.effect("substitutes ${__dirname}, ${/}, ${DOWNLOADS} and the answers; a list is one argument per value", () =>
    Effect.gen(function*() {
      const entry = yield* launch(manifest(), { roots: ["/a", "/b c"] })
      assert.deepStrictEqual(entry.args, ["/b/files/server/index.js", "/a", "/b c", "--depth=2"])
      assert.deepStrictEqual(entry.env, { FILES_TOKEN: "", OUT: "/home/ada/Downloads" })
      assert.strictEqual(entry.cwd, "/b/files")
      const windows = yield* launch(manifest(), { roots: ["C:\\a"], token: "t" }, "win32")
      assert.strictEqual(windows.command, "node.exe")
      assert.strictEqual(windows.args[0], "/b/files\\server\\index.js")
    }))

  it.effect("every unanswered required question and wrong answer is named; nothing is launched", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(launch(manifest(), { depth: 9, token: 3 }))
      assert.deepStrictEqual(error.message.split("\n"), [
        "bundle \"files\": user_config.roots (Folders): required, and not given",
        "bundle \"files\": user_config.depth (Depth): expected at most 5",
        "bundle \"files\": user_config.token (Token): expected a string"
      ])
    }))

  it.effect("a platform the bundle does not run on, and a manifest without a server", () =>
    Effect.gen(function*() {
      const mac = manifest({ compatibility: { platforms: ["darwin"] } })
      const error = yield* Effect.flip(launch(mac, { roots: ["/a"] }))
      assert.include(error.message, "runs on darwin, not linux")
      const broken = yield* Effect.flip(McpBundle.parseManifest(JSON.stringify({ name: "x" })))
      assert.include(broken.message, "server: expected an object")
    }))

  it.effect("without mcp_config: the entry point run by its server type", () =>
    Effect.gen(function*() {
      const binary = JSON.stringify({ name: "bin", server: { type: "binary", entry_point: "bin/server" } })
      const entry = yield* launch(binary, {})
      assert.strictEqual(entry.command, "/b/files/bin/server")
      const python = JSON.stringify({ name: "py", server: { type: "python", entry_point: "main.py" } })
      assert.deepStrictEqual((yield* launch(python, {})).args, ["/b/files/main.py"])
    }))
})
