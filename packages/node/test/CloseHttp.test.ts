// After close(), an HTTP client leaves nothing that keeps its process alive: no socket, no timer.
// (How long a process then takes to end is Node's: Node 20 and 22 wait at exit for V8 to finish
// the WebAssembly tier-up of undici's HTTP parser, plain `fetch` included; Node 24 does not.)
import { assert, describe, it } from "@effect/vitest"
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import { execFile } from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const program = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "programs/closeHttp.mjs")

/** The program's report: what kept its event loop alive on each turn after close(). */
const afterClose = (mode: "facade" | "layer", url: string) =>
  Effect.async<ReadonlyArray<ReadonlyArray<string>>, Error>((resume) => {
    const child = execFile(process.execPath, [program, mode, url, "echo"], { timeout: 60_000 }, (error, stdout) => {
      if (error !== null) return resume(Effect.fail(error))
      // Log lines (the HTTP+SSE deprecation warning) come before "closed".
      const lines = stdout.trimEnd().split("\n")
      const closed = lines.indexOf("closed")
      if (closed === -1) return resume(Effect.fail(new Error(`no "closed" line in ${stdout}`)))
      resume(Effect.succeed(lines.slice(closed + 1).map((line) => JSON.parse(line.slice(line.indexOf(" ") + 1)))))
    })
    return Effect.sync(() => child.kill())
  })

describe("a closed HTTP client keeps nothing alive", () => {
  for (const mode of ["facade", "layer"] as const) {
    it.scopedLive(`${mode}: Streamable HTTP and legacy HTTP+SSE [not-on-deno: Deno keeps undici's closed sockets as handles a while]`, () =>
      Effect.gen(function*() {
        const server = yield* FakeHttpServer.make({ definition: Scenarios.demo })
        for (const url of [server.mcpUrl, server.sseUrl]) {
          const turns = yield* afterClose(mode, url)
          // A socket whose close was asked for ends in a following close phase; one that stays
          // open (a stream, a kept-alive connection) would still be there 20 turns on.
          assert.deepStrictEqual(turns[turns.length - 1], [], `${url}: ${JSON.stringify(turns)}`)
        }
        const methods = (yield* server.requests).map((r) => `${r.method} ${r.path.replace(/\?.*/, "")}`)
        assert.includeMembers(methods, ["GET /mcp", "DELETE /mcp", "GET /sse"], JSON.stringify(methods))
      }))
  }
})
