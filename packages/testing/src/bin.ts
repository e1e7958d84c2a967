#!/usr/bin/env node
/**
 * `mcp-effect-fake-server`: serves a fake server definition over stdio.
 *
 *   mcp-effect-fake-server [--page-size N] [--faults JSON] [--exit-on-stdin-close=false]
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
const ignoreSigterm = process.argv.includes("--ignore-sigterm")
if (ignoreSigterm) {
  // A stubborn server: survives SIGTERM and the end of its input, so only SIGKILL stops it.
  process.on("SIGTERM", () => {})
  setInterval(() => {}, 1 << 30)
}

const definition: FakeServer.Definition = {
  ...Scenarios.demo,
  ...(pageSize !== undefined ? { pageSize: Number(pageSize) } : {}),
  ...(faults !== undefined ? { faults: JSON.parse(faults) as ReadonlyArray<FakeServer.Fault> } : {})
}

const main = Effect.gen(function*() {
  const server = yield* FakeServer.make(definition)
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
          connection.receive(JSON.parse(line))
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
