/**
 * The CLI remembers each server's era in `mcp-effect/era.json` of the configuration directory
 * (`$XDG_CONFIG_HOME` here, a temporary folder), and `--no-era-cache` turns that off.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { cli, fakeServerBin, tempDir } from "./utils.js"

const target = `node ${fakeServerBin}`

describe("the era cache of the CLI", () => {
  it.scoped("the first run probes and writes era.json; the next one opens with initialize at once", () =>
    Effect.gen(function*() {
      const home = yield* tempDir
      const env = { XDG_CONFIG_HOME: home }
      const first = yield* cli(["tools", "--target", target, "-v"], { env })
      assert.strictEqual(first.code, 0, first.stderr)
      assert.include(first.stderr, "not a 2026-07-28 server")
      assert.strictEqual(Fs.statSync(Path.join(home, "mcp-effect", "era.json")).mode & 0o777, 0o600)
      const second = yield* cli(["tools", "--target", target, "-v"], { env })
      assert.strictEqual(second.code, 0, second.stderr)
      assert.include(second.stderr, "remembered as legacy")
      assert.notInclude(second.stderr, "not a 2026-07-28 server")
    }))

  it.scoped("--no-era-cache probes every time and writes nothing", () =>
    Effect.gen(function*() {
      const home = yield* tempDir
      const result = yield* cli(["tools", "--target", target, "-v", "--no-era-cache"], {
        env: { XDG_CONFIG_HOME: home }
      })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.include(result.stderr, "not a 2026-07-28 server")
      assert.deepStrictEqual(Fs.readdirSync(home), [])
    }))
})
