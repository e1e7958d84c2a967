import { assert, describe, it } from "@effect/vitest"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import { cli, fakeServerBin, tempDir } from "./utils.js"

interface JsonReport {
  readonly name: string
  readonly ok: boolean
  readonly steps: ReadonlyArray<{ readonly name: string; readonly status: string; readonly hint?: string }>
}

const closedPort = Effect.async<number>((resume) => {
  const server = Net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as Net.AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

describe("mcp-effect doctor", () => {
  it.scopedLive("a configured server by name: its steps, one line each; exit 0", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      Fs.writeFileSync(
        Path.join(dir, ".mcp.json"),
        JSON.stringify({ mcpServers: { fake: { command: process.execPath, args: [fakeServerBin] } } })
      )
      const { code, stderr, stdout } = yield* cli(["doctor", "fake"], { cwd: dir })
      assert.strictEqual(code, 0, stderr)
      assert.match(stdout, /^fake \(/)
      assert.match(stdout, /ok +era .*legacy era/)
      assert.match(stdout, /ok +tools .*\d+ tools/)
    }))

  it.scopedLive("--json: the reports as a document; a failed step exits with 1 and carries its hint", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const { code, stdout } = yield* cli(["doctor", `http://127.0.0.1:${port}/mcp`, "--json"])
      assert.strictEqual(code, 1)
      const { reports } = JSON.parse(stdout) as { reports: ReadonlyArray<JsonReport> }
      assert.isFalse(reports[0]!.ok)
      const tcp = reports[0]!.steps.find((step) => step.name === "tcp")!
      assert.strictEqual(tcp.status, "fail")
      assert.include(tcp.hint, "nothing listens")
    }))

  it.scopedLive("a URL target over HTTP: every step, the metadata none needed", () =>
    Effect.gen(function*() {
      const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
      const { code, stderr, stdout } = yield* cli(["doctor", server.mcpUrl, "--json"])
      assert.strictEqual(code, 0, stderr)
      const { reports } = JSON.parse(stdout) as { reports: ReadonlyArray<JsonReport> }
      assert.deepStrictEqual(reports[0]!.steps.map((step) => `${step.name}:${step.status}`), [
        "dns:ok",
        "tcp:ok",
        "tls:skip",
        "http:ok",
        "metadata:ok",
        "era:ok",
        "auth:ok",
        "tools:ok"
      ])
    }))
})
