import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Runtime from "effect/Runtime"
import * as TestClock from "effect/TestClock"
import * as StdoutNoise from "../src/internal/stdio/stdoutNoise.js"

// Lines on a stdio server's stdout that are not messages: the first logged at once, the rest
// counted and logged once per interval while they keep coming.

const captured = () => {
  const lines: Array<string> = []
  const layer = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => lines.push(String(message))))
  return { lines, layer }
}

describe("stdout noise", () => {
  it.scoped("logs the first line at once, then one count per interval, and starts over after a quiet one", () => {
    const logs = captured()
    return Effect.gen(function*() {
      const noise = StdoutNoise.make("srv", Runtime.runFork(yield* Effect.runtime<never>()), "5 seconds")
      noise.onMalformed("invalid-json", 6, "\"hello\"")
      noise.onMalformed("invalid-json", 10, "\"again\"")
      noise.onMalformed("too-long", 100, "")
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(logs.lines, [
        "srv: skipped a malformed line on stdout (6 bytes) \"hello\"; more are counted and logged every 5s"
      ])
      yield* TestClock.adjust("4 seconds")
      assert.strictEqual(
        logs.lines[1],
        "srv: skipped 2 more lines on stdout (1 malformed, 1 too long, 110 bytes) in the last 5s"
      )
      yield* TestClock.adjust("5 seconds")
      assert.strictEqual(logs.lines.length, 2, "a quiet interval logs nothing")
      noise.onMalformed("invalid-json", 3, "\"x\"")
      yield* TestClock.adjust("1 second")
      assert.strictEqual(logs.lines.length, 3)
      assert.include(logs.lines[2], "(3 bytes) \"x\"")
      noise.onMalformed("invalid-json", 4, "\"y\"")
      yield* noise.flush
      assert.strictEqual(logs.lines[3], "srv: skipped 1 more line on stdout (1 malformed, 4 bytes) in the last 5s")
    }).pipe(Effect.provide(logs.layer))
  })
})
