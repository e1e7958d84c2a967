/**
 * The one way to send: a request is a record (`OutgoingRequest`), a sender a function of it
 * (`Send`), and every behaviour on the way a `Step` from the next sender to a sender, in a file
 * of its own here. `connection/requests.ts` composes the steps that apply, once per connection
 * and once per session, down to the session's peer.
 *
 * A sender may also offer its request without a fiber (`Send.now`): the last one does where the
 * transport writes synchronously; a pure step passes it on, an effectful one drops it, so when
 * the fast path is offered follows from what was composed.
 *
 * @internal
 */
import type * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type { ConnectError, ValidationError } from "../../McpError.js"
import type { RequestOptions } from "../../ServerConnection.js"

/** @internal */
export type Params = Record<string, unknown> | undefined

/** One request and everything a step may need of it. @internal */
export interface OutgoingRequest {
  readonly method: string
  readonly params: Params
  readonly options?: RequestOptions | undefined
  /** Headers of the request (`Mcp-Name`, `Mcp-Param-*`): sent on 2026-07-28. */
  readonly headers?: Record<string, string> | undefined
  /** Set by the era decoration: a 2026-07-28 request (its transport sends the era's headers). */
  readonly modern?: boolean | undefined
  /**
   * The `input_required` rounds start from these answers (`resumeInputRequired`); without
   * answers, from the pending round itself (its input requests put to the handlers first).
   */
  readonly resume?: {
    readonly inputResponses: Record<string, unknown> | undefined
    readonly inputRequests?: Record<string, unknown> | undefined
    readonly requestState: string | undefined
  } | undefined
  /** Told, once the rounds completed, whether any round answered input or echoed state. */
  readonly onRounds?: ((retried: boolean) => void) | undefined
  /** Told the credential's hash the request went out with. */
  readonly onAuthorization?: ((sha256: string | undefined) => void) | undefined
  /** Told the JSON-RPC id of each attempt. */
  readonly onId?: ((id: number) => void) | undefined
  /** Builds the request afresh once the definitions behind its headers changed (-32020). */
  readonly refresh?: (() => Effect.Effect<OutgoingRequest, ConnectError | ValidationError>) | undefined
}

/**
 * How a request sent without a fiber ended: its `exit`, or the `effect` that goes on from its
 * first answer the general way (input rounds, a refresh, …), for the caller to run.
 *
 * @internal
 */
export type Outcome<E> =
  | { readonly _tag: "Done"; readonly exit: Exit.Exit<unknown, ConnectError | E> }
  | { readonly _tag: "Continue"; readonly effect: Effect.Effect<unknown, ConnectError | E> }

/**
 * Sends without a fiber: `onOutcome` gets the outcome once, the function returned abandons the
 * request. `undefined`: not possible now (no open session, say); send the effect.
 *
 * @internal
 */
export type SendNow<E> = (
  request: OutgoingRequest,
  onOutcome: (outcome: Outcome<E>) => void
) => (() => void) | undefined

/**
 * A sender. Its effect is lazy (built once, it may run any number of times); `now`, where
 * every step on the way allows it, sends without a fiber.
 *
 * @internal
 */
export interface Send<E = never> {
  (request: OutgoingRequest): Effect.Effect<unknown, ConnectError | E>
  readonly now?: SendNow<E> | undefined
}

/** A behaviour on the way: the next sender to a sender. @internal */
export type Step<E = never, E2 = E> = (next: Send<E>) => Send<E2>

/** A sender of `send`, offering `now` when given one. @internal */
export const sender = <E = never>(
  send: (request: OutgoingRequest) => Effect.Effect<unknown, ConnectError | NoInfer<E>>,
  now: SendNow<NoInfer<E>> | undefined
): Send<E> => now === undefined ? send : Object.assign(send, { now })

/** @internal */
export const done = <E>(exit: Exit.Exit<unknown, ConnectError | E>): Outcome<E> => ({ _tag: "Done", exit })

/** @internal */
export const proceed = <E>(effect: Effect.Effect<unknown, ConnectError | E>): Outcome<E> => ({
  _tag: "Continue",
  effect
})
