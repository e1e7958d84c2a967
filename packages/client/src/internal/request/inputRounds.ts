/**
 * Multi-round-trip requests (DIGEST §5): a result that asks for input is answered with the
 * host's handlers, each round retried with a new id, the `inputResponses` and the echoed
 * `requestState`, until a complete result (or a task, where the tasks extension allows one).
 * Load shedding (state only) waits as the host's hook or a growing pause says, within the
 * request's timeout. Offers the fiber-free path of the sender it wraps: a complete first answer
 * is done; any other goes on as an effect.
 *
 * @internal
 */
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Predicate from "effect/Predicate"
import * as Handlers from "../../Handlers.js"
import type { ConnectError } from "../../McpError.js"
import { InputRequiredError } from "../../McpError.js"
import * as Protocol from "../../Protocol.js"
import type { Options } from "../../ServerConnection.js"
import * as Limits from "../limits.js"
import * as Policies from "../policies.js"
import type { OutgoingRequest, Send, Step } from "./send.js"
import { proceed, sender } from "./send.js"

/** What the rounds read of the connection. @internal */
export interface Settings {
  readonly server: string
  readonly options: Options
  readonly defaultTimeoutMs: number
  readonly tasksDeclared: boolean
  readonly clock: Clock.Clock
}

const timeoutOf = (request: OutgoingRequest): number | undefined =>
  request.options?.timeout === undefined ? undefined : Duration.toMillis(Duration.decode(request.options.timeout))

type Rounds = Effect.Effect<unknown, ConnectError | InputRequiredError>

/** @internal */
export const inputRounds = (settings: Settings): Step<never, InputRequiredError> => {
  const { clock, defaultTimeoutMs, options, server, tasksDeclared } = settings
  const handlers = options.handlers
  // The rounds from `result`, the answer to round `n` (sent with `inputResponses`/`requestState`).
  const from = (
    next: Send,
    request: OutgoingRequest,
    startedAt: number,
    n: number,
    answered: boolean,
    result: unknown
  ): Rounds => {
    const { method, params } = request
    const round = (n: number, inputResponses: Record<string, unknown> | undefined, requestState: string | undefined) =>
      Effect.flatMap(
        next(Object.assign({}, request, {
          params: {
            ...params,
            ...(inputResponses === undefined ? {} : { inputResponses }),
            ...(requestState === undefined ? {} : { requestState })
          }
        })),
        (result) => from(next, request, startedAt, n, true, result)
      )
    const type = Protocol.resultTypeOf(result)
    if (type === "complete") {
      request.onRounds?.(answered)
      return Effect.succeed(result)
    }
    // The tasks extension: only tools/call may answer with a task, and only when declared.
    if (
      type === "invalid" && method === "tools/call" && tasksDeclared && Predicate.isRecord(result) &&
      result.resultType === "task"
    ) return Effect.succeed(result)
    if (type === "invalid") return Effect.fail(Protocol.invalidResult(server, method, result))
    const r = result as Record<string, unknown>
    const state = typeof r.requestState === "string" ? r.requestState : undefined
    const requests = r.inputRequests
    const fail = (reason: string, resumable: boolean) =>
      Effect.fail(
        new InputRequiredError({
          server,
          method,
          params,
          inputRequests: requests,
          requestState: state,
          resumable,
          reason
        })
      )
    if (n > Limits.MAX_INPUT_ROUNDS) return fail(`more than ${Limits.MAX_INPUT_ROUNDS} rounds`, true)
    if (requests === undefined) {
      if (state === undefined) {
        return fail("an input_required result with neither inputRequests nor requestState", false)
      }
      // Load shedding: only state came back. The host hook (or a growing pause) decides,
      // and the whole wait stays inside the request's timeout.
      const delayMs = Policies.inputRoundPauseMs(n)
      return Effect.suspend(() => {
        const elapsedMs = clock.unsafeCurrentTimeMillis() - startedAt
        const decide = options.onInputRequiredWait === undefined
          ? Effect.succeed<"retry" | "cancel" | number>(delayMs)
          : options.onInputRequiredWait({ method, round: n, delayMs, requestState: state, elapsedMs })
        return Effect.flatMap(decide, (decision) => {
          if (decision === "cancel") return fail("cancelled while the server was busy", true)
          const pause = decision === "retry" ? 0 : Math.max(0, decision)
          if (elapsedMs + pause > (timeoutOf(request) ?? defaultTimeoutMs)) {
            return fail("the server stayed busy past the request's timeout", true)
          }
          return Effect.zipRight(
            Effect.sleep(Duration.millis(pause)),
            Effect.suspend(() => round(n + 1, undefined, state))
          )
        })
      })
    }
    if (!Predicate.isRecord(requests)) {
      return fail("malformed inputRequests", false)
    }
    const entries = Object.entries(requests)
    for (const [, request] of entries) {
      if (
        !Predicate.isRecord(request) || typeof request.method !== "string" ||
        (request.params !== undefined && !Predicate.isRecord(request.params))
      ) {
        return fail("malformed inputRequests", false)
      }
    }
    return Effect.flatMap(
      Effect.forEach(entries, ([key, request]) => {
        const r = request as { method: string; params?: Record<string, unknown> }
        const served = Handlers.serve(handlers, r.method, r.params ?? {}, "modern")
        if (served === undefined) return fail(`no handler for ${r.method}`, true)
        return Effect.map(
          Effect.catchAll(served, (error) =>
            error instanceof Handlers.InvalidInputRequest
              ? fail(`refused ${r.method}: ${error.message}`, false)
              : Effect.zipRight(
                Effect.logWarning(`${server}: the ${r.method} handler failed: ${String(error)}`),
                fail(`the ${r.method} handler failed`, true)
              )),
          (answer) => [key, answer] as const
        )
      }),
      (answers) => round(n + 1, Object.fromEntries(answers), state)
    )
  }

  // The first round carries the answers it resumes from, if any.
  const withResume = (request: OutgoingRequest): OutgoingRequest => {
    const resume = request.resume
    if (resume?.inputResponses === undefined) return request
    return Object.assign({}, request, {
      params: {
        ...request.params,
        inputResponses: resume.inputResponses,
        ...(resume.requestState === undefined ? {} : { requestState: resume.requestState })
      }
    })
  }

  return (next) => {
    const now = next.now
    return sender<InputRequiredError>(
      (request) =>
        Effect.suspend(() => {
          const startedAt = clock.unsafeCurrentTimeMillis()
          const resume = request.resume
          // A saved round resumed without answers: answered here first, as if it just arrived.
          if (resume !== undefined && resume.inputResponses === undefined) {
            return from(next, request, startedAt, 1, true, {
              resultType: "input_required",
              ...(resume.inputRequests === undefined ? {} : { inputRequests: resume.inputRequests }),
              ...(resume.requestState === undefined ? {} : { requestState: resume.requestState })
            })
          }
          return Effect.flatMap(
            next(withResume(request)),
            (result) => from(next, request, startedAt, 1, request.resume !== undefined, result)
          )
        }),
      now === undefined ? undefined : (request, onOutcome) => {
        if (request.resume !== undefined && request.resume.inputResponses === undefined) return undefined
        const startedAt = clock.unsafeCurrentTimeMillis()
        return now(withResume(request), (outcome) => {
          if (outcome._tag === "Continue") {
            return onOutcome(proceed(Effect.flatMap(
              outcome.effect,
              (result) => from(next, request, startedAt, 1, request.resume !== undefined, result)
            )))
          }
          const exit = outcome.exit
          if (Exit.isSuccess(exit) && Protocol.resultTypeOf(exit.value) === "complete") {
            request.onRounds?.(request.resume !== undefined)
            return onOutcome(outcome)
          }
          onOutcome(
            Exit.isFailure(exit)
              ? outcome
              : proceed(from(next, request, startedAt, 1, request.resume !== undefined, exit.value))
          )
        })
      }
    )
  }
}
