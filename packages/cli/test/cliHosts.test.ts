import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fflate from "fflate"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"
import { cli, fakeServerBin, tempDir } from "./utils.js"

describe("mcp-effect with other hosts' files", () => {
  it.scopedLive("--config reads Codex's config.toml", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = Path.join(dir, "config.toml")
      Fs.writeFileSync(
        config,
        [
          "[mcp_servers.fake]",
          `command = ${JSON.stringify(process.execPath)}`,
          `args = [${JSON.stringify(fakeServerBin)}]`,
          "",
          "[mcp_servers.off]",
          "command = \"nothing\"",
          "enabled = false"
        ].join("\n")
      )
      const { code, stdout, stderr } = yield* cli(["servers", "--config", config, "--json"])
      assert.strictEqual(code, 0, stderr)
      const { servers } = JSON.parse(stdout) as { servers: ReadonlyArray<{ name: string; status: string }> }
      assert.deepStrictEqual(servers.map((s) => [s.name, s.status]), [["fake", "ok"], ["off", "disabled"]])
    }))

  it.scopedLive("--config runs an .mcpb bundle, its user_config answered by --user-config", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
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
            env: { KEY: "${user_config.key}" }
          }
        },
        user_config: { key: { type: "string", title: "Key", required: true } }
      }
      const bundle = Path.join(dir, "bundled.mcpb")
      Fs.writeFileSync(
        bundle,
        Fflate.zipSync({
          "manifest.json": Fflate.strToU8(JSON.stringify(manifest)),
          "server/index.mjs": Fflate.strToU8(`await import(${JSON.stringify(pathToFileURL(fakeServerBin).href)})\n`)
        })
      )
      const env = { XDG_CONFIG_HOME: dir }
      const missing = yield* cli(["tools", "--config", bundle], { env })
      assert.strictEqual(missing.code, 1)
      assert.include(missing.stderr, "user_config.key (Key): required, and not given")
      const { code, stdout, stderr } = yield* cli(["tools", "--config", bundle, "--user-config", "key=k"], { env })
      assert.strictEqual(code, 0, stderr)
      assert.include(stdout, "add")
    }))
})
