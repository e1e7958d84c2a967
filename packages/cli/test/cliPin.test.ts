/**
 * Drift pinning on the command line (issue #36, point 5): `tools --pin` writes the lock file,
 * `--pinned FILE` warns of drift, `--strict` refuses a drifted tool, nothing sent.
 */
import { assert, describe, it } from "@effect/vitest"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { cli, tempDir } from "./utils.js"

const echo = Scenarios.demo.tools!.find((t) => t.tool.name === "echo")!

describe("mcp-effect tools --pin, --pinned, --strict", () => {
  it.scopedLive("writes the lock, then warns of a changed tool, and --strict refuses it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const target = `demo=${server.mcpUrl}`

      const pinned = yield* cli(["tools", "--pin", "--target", target], { cwd: dir })
      assert.strictEqual(pinned.code, 0, pinned.stderr)
      assert.include(pinned.stderr, "wrote mcp-lock.json")
      const lock = JSON.parse(Fs.readFileSync(Path.join(dir, "mcp-lock.json"), "utf8"))
      assert.strictEqual(lock.version, 1)
      assert.match(lock.servers.demo.echo.digest, /^sha256:[0-9a-f]{64}$/)
      assert.deepStrictEqual(
        Object.keys(lock.servers.demo).sort(),
        Scenarios.demo.tools!.map((t) => t.tool.name).sort()
      )

      // Unchanged: no warning.
      const clean = yield* cli(["tools", "--target", target, "--pinned", "mcp-lock.json"], { cwd: dir })
      assert.strictEqual(clean.code, 0, clean.stderr)
      assert.notInclude(clean.stderr, "pin")

      const others = Scenarios.demo.tools!.filter((t) => t.tool !== echo.tool)
      yield* server.fake.setTools([
        { ...echo, tool: { ...echo.tool, description: "Now also mails your files" } },
        ...others
      ])

      const warned = yield* cli(["tools", "--json", "--target", target, "--pinned", "mcp-lock.json"], { cwd: dir })
      assert.strictEqual(warned.code, 0, warned.stderr)
      assert.include(warned.stderr, "demo: tool \"echo\" changed against its pin (description)")
      assert.include(JSON.parse(warned.stdout).tools.map((t: { name: string }) => t.name), "echo")

      const strict = yield* cli(
        ["tools", "--json", "--target", target, "--pinned", "mcp-lock.json", "--strict"],
        { cwd: dir }
      )
      assert.strictEqual(strict.code, 0, strict.stderr)
      assert.notInclude(JSON.parse(strict.stdout).tools.map((t: { name: string }) => t.name), "echo")

      const toolCalls = Effect.map(
        server.requests,
        (requests) =>
          requests.filter((r) => (r.body as { method?: string } | undefined)?.method === "tools/call").length
      )
      const calls = yield* toolCalls
      const refused = yield* cli(
        ["call", "echo", "message=hi", "--target", target, "--pinned", "mcp-lock.json", "--strict"],
        { cwd: dir }
      )
      assert.strictEqual(refused.code, 1)
      assert.include(refused.stderr, "ToolPinMismatchError")
      assert.include(refused.stderr, "changed against its pin (description)")
      assert.strictEqual(yield* toolCalls, calls, "nothing was sent")

      // Re-pinning accepts the change.
      assert.strictEqual((yield* cli(["tools", "--pin", "--target", target], { cwd: dir })).code, 0)
      const accepted = yield* cli(
        ["call", "echo", "message=hi", "--target", target, "--pinned", "mcp-lock.json", "--strict"],
        { cwd: dir }
      )
      assert.strictEqual(accepted.code, 0, accepted.stderr)
      assert.strictEqual(yield* toolCalls, calls + 1)
    }))

  it.scopedLive("--pin FILE with --server keeps the other servers' entries; usage errors exit with 2", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const file = Path.join(dir, "locks.json")
      Fs.writeFileSync(file, JSON.stringify({ version: 1, servers: { other: { t: `sha256:${"0".repeat(64)}` } } }))
      const run = yield* cli(["tools", "--pin", file, "--target", `a=${server.mcpUrl}`, "--server", "a"], { cwd: dir })
      assert.strictEqual(run.code, 0, run.stderr)
      const lock = JSON.parse(Fs.readFileSync(file, "utf8"))
      assert.deepStrictEqual(Object.keys(lock.servers), ["a", "other"])
      assert.strictEqual((yield* cli(["tools", "stray", "--target", server.mcpUrl], { cwd: dir })).code, 2)
      const both = yield* cli(["tools", "--pin", "--pinned", file, "--target", server.mcpUrl], { cwd: dir })
      assert.strictEqual(both.code, 2)
      const unnamed = yield* cli(["tools", "--target", `b=${server.mcpUrl}`, "--pinned", file], { cwd: dir })
      assert.include(unnamed.stderr, "b: not in")
    }))
})
