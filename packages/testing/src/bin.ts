#!/usr/bin/env node
/**
 * `mcp-effect-fake-server`: serves a fake server definition over stdio.
 *
 *   mcp-effect-fake-server [--page-size N] [--faults JSON] [--exit-on-stdin-close=false]
 *                          [--era legacy|modern|dual] [--log-received]
 *
 * `--era` other than legacy adds a `publish` tool that sends `notifications/tools/list_changed`
 * to the open 2026-07-28 subscriptions; `--log-received` writes one stderr line per message
 * received (`fake server pid=<pid> received {"method":…,"id":…,"requestId":…}`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import * as FakeServer from "./FakeServer.js"
import * as Scenarios from "./Scenarios.js"

const flag = (name: string): string | undefined => {
  const index = process.argv.indexOf(name)
  return index === -1 ? undefined : process.argv[index + 1]
}

const pageSize = flag("--page-size")
const faults = flag("--faults")
const era = flag("--era") as FakeServer.Definition["era"]
const logReceived = process.argv.includes("--log-received")
const ignoreSigterm = process.argv.includes("--ignore-sigterm")
if (ignoreSigterm) {
  // A stubborn server: survives SIGTERM and the end of its input, so only SIGKILL stops it.
  process.on("SIGTERM", () => {})
  setInterval(() => {}, 1 << 30)
}

let publish: Effect.Effect<void> = Effect.void

const definition: FakeServer.Definition = {
  ...Scenarios.demo,
  ...(pageSize !== undefined ? { pageSize: Number(pageSize) } : {}),
  ...(faults !== undefined ? { faults: JSON.parse(faults) as ReadonlyArray<FakeServer.Fault> } : {}),
  ...(era !== undefined && era !== "legacy"
    ? {
      era,
      tools: [
        ...Scenarios.demo.tools ?? [],
        FakeServer.tool("publish", () => Effect.as(Effect.suspend(() => publish), "published"))
      ]
    }
    : {})
}

const main = Effect.gen(function*() {
  const server = yield* FakeServer.make(definition)
  publish = server.publish("notifications/tools/list_changed")
  const scope = yield* Scope.make()
  const out = process.stdout
  const connection = yield* server.serve({
    send: (message) => out.write(JSON.stringify(message) + "\n"),
    sendRaw: (text) => out.write(text + "\n"),
    close: () => process.exit(3)
  }).pipe(Scope.extend(scope))

  let buffered: Array<Buffer> = []
  process.stdin.on("data", (chunk: Buffer) => {
    let start = 0
    let newline = chunk.indexOf(10, start)
    while (newline !== -1) {
      buffered.push(chunk.subarray(start, newline))
      const line = Buffer.concat(buffered).toString("utf8")
      buffered = []
      if (line.trim().length > 0) {
        try {
          const message = JSON.parse(line)
          if (logReceived) {
            const { id, method, params } = (typeof message === "object" && message !== null ? message : {}) as {
              id?: unknown
              method?: unknown
              params?: { requestId?: unknown }
            }
            process.stderr.write(
              `fake server pid=${process.pid} received ${
                JSON.stringify({ method, id, requestId: params?.requestId })
              }\n`
            )
          }
          connection.receive(message)
        } catch {
          process.stderr.write("fake server: skipped a malformed line\n")
        }
      }
      start = newline + 1
      newline = chunk.indexOf(10, start)
    }
    if (start < chunk.length) buffered.push(chunk.subarray(start))
  })
  process.stdin.on("end", () => {
    if (!ignoreSigterm) process.exit(0)
  })
  process.stderr.write(`fake server ready pid=${process.pid}\n`)
})

Effect.runFork(main)
