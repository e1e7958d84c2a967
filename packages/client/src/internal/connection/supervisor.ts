/**
 * The connection's state around its sessions: `Connecting` for the first opening, `Reconnecting`
 * for each later one, `Ready` once open, `Failed` when an opening failed and no supervisor tries
 * again; what happens when a session's peer dies; and the supervised reconnect.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import { ConnectionState } from "../../ConnectionState.js"
import type { ConnectError, ConnectionError } from "../../McpError.js"
import * as Tracing from "../tracing.js"
import type { Current, Session, Shared } from "./core.js"

/** @internal */
export interface Supervisor {
  /** Opens a session, the state following. */
  readonly open: Effect.Effect<Session, ConnectError>
  /** Watches an open session (in its scope) for its end; gives what to do when its peer closes. */
  readonly watch: (s: Session) => Effect.Effect<(error: ConnectionError) => Effect.Effect<void>, never, Scope.Scope>
}

/** @internal */
export const make = (options: {
  readonly core: Pick<Shared, "tracing" | "state">
  readonly current: Current
  /** Opens a new session in place of the current one. */
  readonly openSession: Effect.Effect<Session, ConnectError>
  /** The open session (opening one when there is none). */
  readonly session: Effect.Effect<Session, ConnectError>
  /** Reconnects after a death, when the config asks for it. */
  readonly reconnect: Schedule.Schedule<unknown, ConnectError> | undefined
  /** Where the supervising fiber runs. */
  readonly scope: Scope.Scope
}): Supervisor => {
  const { current, openSession, reconnect, session } = options
  const { state, tracing } = options.core
  let everReady = false
  let attempts = 0
  let lastCause: ConnectError | undefined
  let supervising = false
  // Each traced session's end: a dead one is ended here when re-opened, its teardown (which ends
  // it otherwise) then running beside the next opening (`session.ts`).
  const ends = tracing === undefined
    ? undefined
    : new WeakMap<Session, (cause: ConnectError | undefined) => Effect.Effect<void>>()

  const openAfter = (cause: ConnectError | undefined) =>
    Effect.zipRight(
      state.set(
        everReady ? ConnectionState.Reconnecting({ attempt: ++attempts, cause }) : ConnectionState.Connecting()
      ),
      tracing === undefined ? openSession : Tracing.connect(tracing, openSession, (s) => s.attributes ?? {})
    )
  const open: Effect.Effect<Session, ConnectError> = Effect.suspend(() => {
    const dead = current.session !== undefined && !current.session.peer.isOpen() ? current.session : undefined
    if (dead === undefined) return openAfter(lastCause)
    const end = ends?.get(dead)
    return Effect.flatMap(
      end === undefined ? dead.peer.closed : Effect.tap(dead.peer.closed, end),
      openAfter
    )
  }).pipe(
    Effect.tapBoth({
      onSuccess: (s) =>
        Effect.suspend(() => {
          everReady = true
          attempts = 0
          lastCause = undefined
          return state.set(
            ConnectionState.Ready({
              protocolVersion: s.negotiated.protocolVersion,
              serverInfo: s.negotiated.serverInfo,
              negotiated: s.negotiated
            })
          )
        }),
      onFailure: (error) =>
        Effect.suspend(() => {
          lastCause = error
          return supervising ? Effect.void : state.set(ConnectionState.Failed({ cause: error }))
        })
    })
  )

  // Supervised reconnect: attempts at once, then after each delay of the schedule, until a
  // session is open (by it or by a request) or the schedule ends (`Failed`).
  const supervise = (schedule: Schedule.Schedule<unknown, ConnectError>) =>
    Effect.suspend(() => {
      if (supervising) return Effect.void
      supervising = true
      return Effect.gen(function*() {
        const driver = yield* Schedule.driver(schedule)
        while (!current.closed) {
          const result = yield* Effect.either(session)
          if (Either.isRight(result)) return
          const next = yield* Effect.either(driver.next(result.left))
          if (Either.isLeft(next)) return yield* state.set(ConnectionState.Failed({ cause: result.left }))
        }
      }).pipe(
        Effect.ensuring(Effect.sync(() => (supervising = false))),
        Effect.forkIn(options.scope),
        Effect.asVoid
      )
    })

  const watch = (s: Session) =>
    Effect.gen(function*() {
      const startedAt = tracing?.clock.unsafeCurrentTimeNanos() ?? BigInt(0)
      let ended = false
      const end = (cause: ConnectError | undefined) =>
        Effect.suspend(() => {
          if (ended || tracing === undefined) return Effect.void
          ended = true
          return Tracing.sessionEnded(tracing, s.attributes ?? {}, startedAt, cause)
        })
      // Runs before the peer's own finalizers: a peer closed by then died. (Without a tracer
      // there is no session metric to end: no finalizer.)
      if (tracing !== undefined) {
        ends?.set(s, end)
        yield* Effect.addFinalizer(() =>
          Effect.flatMap(s.peer.isOpen() ? Effect.succeed(undefined) : s.peer.closed, end)
        )
      }
      return (error: ConnectionError) =>
        Effect.suspend(() => {
          if (current.closed || current.session?.peer !== s.peer) return Effect.void
          lastCause = error
          return Effect.zipRight(
            end(error),
            reconnect === undefined ? state.set(ConnectionState.Failed({ cause: error })) : supervise(reconnect)
          )
        })
    })

  return { open, watch }
}
