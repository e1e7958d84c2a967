/**
 * Many independent fake MCP servers in one process, for the fan-out and reconnect benchmarks:
 * `node fake-http-fleet.js <count>` starts `count` `FakeHttpServer`s of `@mcp-effect/testing`
 * (the demo definition, 2025-11-25 with `Mcp-Session-Id` sessions, JSON replies), each on a
 * loopback port of its own (the fake serves one server at `/mcp`; a port each also makes each one
 * an origin of its own, as a thousand real servers would be), and prints
 * `urls ["http://127.0.0.1:<port>/mcp", …]`. A line `expire` on stdin makes every server forget
 * its sessions (the next request of a session gets 404: "HTTP session lost"); it prints
 * `expired <epoch ms>` once done.
 *
 * @since 0.2.0
 */
import * as FakeHttpServer from "@mcp-effect/testing/FakeHttpServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Effect from "effect/Effect"
import { createInterface } from "node:readline"

const count = Number(process.argv[2] ?? "1")
if (!Number.isInteger(count) || count < 1) throw new Error(`fake-http-fleet: bad count ${process.argv[2]}`)

const program = Effect.gen(function*() {
  const servers = yield* Effect.forEach(
    Array.from({ length: count }),
    () => FakeHttpServer.make({ definition: Scenarios.demo, responseMode: "json" }),
    { concurrency: 16 }
  )
  const expireAll = Effect.forEach(servers, (server) => server.expireSessions, { discard: true })
  createInterface({ input: process.stdin }).on("line", (line) => {
    if (line.trim() !== "expire") return
    Effect.runSync(expireAll)
    process.stdout.write(`expired ${performance.timeOrigin + performance.now()}\n`)
  })
  // The parent going away closes stdin: then this process has no one to serve.
  process.stdin.once("end", () => process.exit(0))
  process.stdout.write(`urls ${JSON.stringify(servers.map((server) => server.mcpUrl))}\n`)
  return yield* Effect.never
})

Effect.runFork(Effect.scoped(program))
