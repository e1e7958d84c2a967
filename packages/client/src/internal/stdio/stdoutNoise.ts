/**
 * Lines on a server's stdout that are not JSON-RPC messages (a server logging to stdout, a
 * banner, a message too long): the first is logged at once, those that follow within the
 * interval are counted and logged as one summary line when it ends, so a chatty server costs
 * the log one warning per interval, not one per line.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type { LineHandlers } from "../wire/ndjson.js"

/** @internal */
export interface StdoutNoise {
  readonly onMalformed: LineHandlers["onMalformed"]
  /** Logs what was counted and not yet reported (when the transport closes). */
  readonly flush: Effect.Effect<void>
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

const skipped = (reason: "invalid-json" | "too-long") => reason === "too-long" ? "too long" : "malformed"

/** @internal */
export const make = (
  server: string,
  runFork: <A, E>(effect: Effect.Effect<A, E>) => Fiber.RuntimeFiber<A, E>,
  interval: Duration.DurationInput
): StdoutNoise => {
  const every = Duration.format(Duration.decode(interval))
  let malformed = 0
  let tooLong = 0
  let bytes = 0
  // A summary is due at the end of the current interval; until then lines are only counted.
  let counting = false

  const summary = (): string | undefined => {
    if (malformed + tooLong === 0) return undefined
    const kinds = [
      malformed > 0 ? `${malformed} malformed` : undefined,
      tooLong > 0 ? `${tooLong} too long` : undefined
    ].filter((kind) => kind !== undefined).join(", ")
    const line =
      `${server}: skipped ${plural(malformed + tooLong, "more line")} on stdout (${kinds}, ${bytes} bytes) ` +
      `in the last ${every}`
    malformed = 0
    tooLong = 0
    bytes = 0
    return line
  }

  // Runs while lines keep coming: each interval that counted some logs them and waits again.
  const tick: Effect.Effect<void> = Effect.flatMap(Effect.sleep(interval), () =>
    Effect.suspend(() => {
      const line = summary()
      if (line === undefined) {
        counting = false
        return Effect.void
      }
      return Effect.zipRight(Effect.logWarning(line), tick)
    }))

  let timer: Fiber.RuntimeFiber<void> | undefined

  const onMalformed: LineHandlers["onMalformed"] = (reason, size, excerpt) => {
    if (counting) {
      if (reason === "too-long") tooLong++
      else malformed++
      bytes += size
      return
    }
    counting = true
    const first = `${server}: skipped a ${skipped(reason)} line on stdout (${size} bytes)${
      excerpt === "" ? "" : ` ${excerpt}`
    }; more are counted and logged every ${every}`
    timer = runFork(Effect.zipRight(Effect.logWarning(first), tick))
  }

  const flush = Effect.suspend(() => {
    const line = summary()
    counting = false
    const stopped = timer === undefined ? Effect.void : Fiber.interrupt(timer)
    timer = undefined
    return Effect.zipRight(stopped, line === undefined ? Effect.void : Effect.logWarning(line))
  })

  return { onMalformed, flush }
}
