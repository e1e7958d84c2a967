/**
 * One DEBUG line per request: method, id, bytes out and in, milliseconds, outcome; never a
 * payload. Composed only on a connection made while DEBUG lines are logged, so a connection
 * that does not log them pays nothing per request.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { escapeControl } from "../escape.js"
import type { Step } from "./send.js"

const utf8 = new TextEncoder()

/** The UTF-8 length of a value's JSON (what goes on the wire, give or take the envelope). */
const bytesOf = (value: unknown): number => {
  if (value === undefined) return 0
  try {
    return utf8.encode(JSON.stringify(value)).length
  } catch {
    return 0
  }
}

const outcomeOf = (exit: Exit.Exit<unknown, { readonly _tag: string }>): string => {
  if (Exit.isSuccess(exit)) return "ok"
  if (Exit.isInterrupted(exit)) return "interrupted"
  const failure = Cause.failureOption(exit.cause)
  return Option.isSome(failure) ? failure.value._tag : "defect"
}

/** @internal */
export const debugLog = (server: string, clock: Clock.Clock): Step => (next) => (request) =>
  Effect.suspend(() => {
    const started = clock.unsafeCurrentTimeMillis()
    const onId = request.onId
    const ids: Array<number> = []
    const sent = Object.assign({}, request, {
      onId: (id: number) => {
        ids.push(id)
        onId?.(id)
      }
    })
    return Effect.onExit(next(sent), (exit) =>
      Effect.logDebug(
        `${escapeControl(server, 200)}: ${escapeControl(request.method, 200)} id=${ids.join(",") || "-"} out=${
          bytesOf(request.params)
        } B in=${Exit.isSuccess(exit) ? bytesOf(exit.value) : 0} B ${clock.unsafeCurrentTimeMillis() - started} ms ${
          outcomeOf(exit)
        }`
      ))
  })
