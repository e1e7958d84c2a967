/**
 * One step of the doctor: its outcome, its timing, and a fix hint when it did not pass. Every
 * text that may hold what a server sent is escaped before it is kept.
 *
 * @internal
 */
import { escapeControl } from "@mcp-effect/client/internal/escape"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { Step, StepName, StepStatus } from "../../NodeDoctor.js"

/** What a step's body decides. */
export interface Outcome {
  readonly status: StepStatus
  readonly detail: string
  readonly hint?: string | undefined
}

/** @internal */
export const ok = (detail: string): Outcome => ({ status: "ok", detail })
/** @internal */
export const warn = (detail: string, hint: string): Outcome => ({ status: "warn", detail, hint })
/** @internal */
export const fail = (detail: string, hint: string): Outcome => ({ status: "fail", detail, hint })

/** @internal */
export const skipped = (name: StepName, why: string): Step => ({ name, status: "skip", ms: 0, detail: why })

/** Server-controlled text as it may be printed. */
export const safe = (text: string, max = 300): string => escapeControl(text, max)

/** The message of whatever a Node API threw, with its code (`ECONNREFUSED: …`). */
export const errorText = (error: unknown): string => {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return safe(typeof code === "string" && !error.message.includes(code) ? `${code}: ${error.message}` : error.message)
  }
  return safe(String(error))
}

/** The code of a Node error (`ECONNREFUSED`), if it has one. */
export const errorCode = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | undefined)?.code
  return typeof code === "string" ? code : undefined
}

/**
 * Runs a step's body with its time limit and times it. A body that fails (a defect included)
 * or runs out of time is the step's failure; `hint` says what to try then.
 *
 * @internal
 */
export const run = <R>(
  name: StepName,
  timeout: Duration.Duration,
  body: Effect.Effect<Outcome, unknown, R>,
  hint: (error: unknown) => string
): Effect.Effect<Step, never, R> =>
  body.pipe(
    Effect.timeoutFail({ duration: timeout, onTimeout: () => new TimedOut(timeout) }),
    Effect.catchAllCause((cause) => {
      const error = Cause.squash(cause)
      return Effect.succeed(
        error instanceof TimedOut
          ? fail(`no answer within ${Duration.format(timeout)}`, hint(error))
          : fail(errorText(error), hint(error))
      )
    }),
    Effect.timed,
    Effect.map(([elapsed, outcome]): Step => ({
      name,
      ...outcome,
      ms: Math.round(Duration.toMillis(elapsed))
    }))
  )

/** A step that ran out of time. @internal */
export class TimedOut {
  readonly _tag = "TimedOut"
  constructor(readonly timeout: Duration.Duration) {}
}
