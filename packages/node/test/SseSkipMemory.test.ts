/**
 * Skipping an oversized event holds a chunk, not the event (issue #32, point 3): a GET stream
 * carrying 4 MiB method names between canary notifications, over a real socket from a server in
 * a child process, in a test file of its own so that this process's RSS is the client's.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ServerConnection from "@mcp-effect/client/ServerConnection"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as ChildProcess from "node:child_process"
import * as Readline from "node:readline"
import * as V8 from "node:v8"
import * as Vm from "node:vm"

const MiB = 1024 * 1024
const UPDATED = "notifications/resources/updated"
const ROUNDS = 48

/**
 * The server: answers `initialize`; holds its GET stream silent until a line on stdin, then
 * writes the rounds (a 4 MiB method name, then a canary) as fast as the client reads. It prints
 * `port N`, then `get N` per GET stream.
 */
const SERVER = String.raw`
import * as NodeHttp from "node:http"
const ROUNDS = Number(process.argv[1])
const canary = (n) => Buffer.from("data: " + JSON.stringify({ jsonrpc: "2.0", method: "${UPDATED}", params: { uri: "x://" + n } }) + "\n\n")
const oversized = Buffer.from('data: {"jsonrpc":"2.0","method":"' + "m".repeat(4 * 1024 * 1024) + '"}\n\n')
let gets = 0
const http = NodeHttp.createServer((req, res) => {
  if (req.method === "GET") {
    res.writeHead(200, { "content-type": "text/event-stream" })
    res.flushHeaders()
    process.stdin.once("data", () => {
      let n = 0
      const more = () => {
        while (n < ROUNDS && !res.destroyed) {
          res.write(oversized)
          const open = res.write(canary(n++))
          if (!open) return
        }
      }
      res.on("drain", more)
      more()
    })
    return void process.stdout.write("get " + ++gets + "\n")
  }
  let body = ""
  req.on("data", (chunk) => (body += chunk))
  req.on("end", () => {
    const message = JSON.parse(body)
    if (message.id === undefined) return void res.writeHead(202).end()
    const answer = message.method === "initialize"
      ? { result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "raw", version: "1" } } }
      : { error: { code: -32601, message: "Method not found" } }
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, ...answer }))
  })
})
http.listen(0, "127.0.0.1", () => process.stdout.write("port " + http.address().port + "\n"))
`

/** The server process, killed with the scope, and the lines it printed so far. */
const serverProcess = Effect.acquireRelease(
  Effect.sync(() => {
    const child = ChildProcess.spawn(process.execPath, ["--input-type=module", "-e", SERVER, String(ROUNDS)], {
      stdio: ["pipe", "pipe", "inherit"]
    })
    const lines: Array<string> = []
    Readline.createInterface({ input: child.stdout }).on("line", (line) => lines.push(line))
    return { child, lines }
  }),
  ({ child }) => Effect.sync(() => child.kill())
)

// What the client holds, not what waits for the collector: 192 MiB of socket reads go through
// Node's buffers, and V8 collects them when it sees fit (on a loaded machine, tens of MiB late).
// Switched on at first use: a runtime without V8's flags only fails the test that uses it.
let gc: (() => void) | undefined
const collect = () => {
  if (gc === undefined) {
    V8.setFlagsFromString("--expose-gc")
    gc = Vm.runInNewContext("gc") as () => void
  }
  gc()
}

/** RSS after a full collection, once the unforced figure passes `threshold` bytes over `base`. */
const rssHeld = (base: number, threshold: number) => {
  const rss = process.memoryUsage.rss()
  if (rss - base <= threshold) return rss
  collect()
  return process.memoryUsage.rss()
}

const until = (check: () => boolean) =>
  Effect.gen(function*() {
    while (!check()) yield* Effect.sleep("10 millis")
  }).pipe(Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error("the condition never held") }))

describe("skipping oversized SSE events", () => {
  it.scopedLive(
    `${ROUNDS} × a 4 MiB method name between canaries: all canaries arrive, RSS grows ≤ 64 MiB [node-only: V8's gc and Node's RSS figures]`,
    () =>
      Effect.gen(function*() {
        const { child, lines } = yield* serverProcess
        yield* until(() => lines.length > 0)
        const url = `http://127.0.0.1:${lines[0]!.slice("port ".length)}/mcp`
        const uris: Array<string> = []
        yield* ServerConnection.make(StreamableHttp.config({ name: "raw", url, maxDecompressedBodyBytes: MiB }), {
          clientInfo: { name: "test", version: "1" },
          onNotification: (_, method, params) => method === UPDATED && uris.push(String(params?.uri))
        })
        yield* until(() => lines.includes("get 1"))
        // Measured from here: the connection and its modules are loaded, the stream is open.
        collect()
        const before = process.memoryUsage.rss()
        let peak = before
        const sampler = setInterval(() => (peak = Math.max(peak, rssHeld(before, 16 * MiB))), 5)
        yield* Effect.addFinalizer(() => Effect.sync(() => clearInterval(sampler)))
        child.stdin.write("go\n")
        yield* until(() => uris.length === ROUNDS)
        peak = Math.max(peak, rssHeld(before, 16 * MiB))
        assert.deepStrictEqual(uris, Array.from({ length: ROUNDS }, (_, n) => `x://${n}`))
        assert.notInclude(lines, "get 2", "the stream was never re-opened")
        // 192 MiB went through; a reader holding each 4 MiB event's text grew ~129 MiB.
        assert.isAtMost(peak - before, 64 * MiB, `RSS grew ${((peak - before) / MiB).toFixed(1)} MiB`)
      }).pipe(Effect.provide(NodeMcpClient.platform), Logger.withMinimumLogLevel(LogLevel.Error)),
    60_000
  )
})
