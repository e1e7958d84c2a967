/**
 * Running effects for Promise callers: a failure rejects with the error itself (not a wrapper),
 * so `instanceof` works, and an `AbortSignal` interrupts the call.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Scope from "effect/Scope"
import type { Signal } from "./types.js"

/** Forks an effect on some runtime. */
export type Fork<R> = <A, E>(effect: Effect.Effect<A, E, R>) => Fiber.RuntimeFiber<A, E>

/** Settles a promise from an exit: the failure is the error itself, so `instanceof` works. */
export const settle =
  <A, E>(resolve: (value: A) => void, reject: (error: unknown) => void) => (exit: Exit.Exit<A, E>) =>
    Exit.isSuccess(exit) ? resolve(exit.value) : reject(Cause.squash(exit.cause))

/** The outcome of an effect forked with `fork`, settled from an observer of the fiber's exit. */
export const promise = <A, E, R>(fork: Fork<R>, effect: Effect.Effect<A, E, R>): Promise<A> =>
  new Promise<A>((resolve, reject) => fork(effect).addObserver(settle(resolve, reject)))

/** An effect needing nothing, on the default runtime. */
export const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => promise(Effect.runFork, effect)

// Aborting interrupts the call's fiber, which cancels the request on the wire
// (`notifications/cancelled`); the promise rejects with the signal's reason, as `fetch` does.
/** A runner of calls on `fork` that honours each call's `signal`. */
export const runnerOn = <R>(fork: Fork<R>) => <A, E>(effect: Effect.Effect<A, E, R>, options?: Signal): Promise<A> => {
  const signal = options?.signal
  if (signal === undefined) return promise(fork, effect)
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<A>((resolve, reject) => {
    const fiber = fork(effect)
    const abort = () => fiber.unsafeInterruptAsFork(FiberId.none)
    signal.addEventListener("abort", abort, { once: true })
    fiber.addObserver((exit) => {
      signal.removeEventListener("abort", abort)
      if (Exit.isInterrupted(exit) && signal.aborted) reject(signal.reason)
      else settle(resolve, reject)(exit)
    })
  })
}

/** A runner, as `runnerOn` builds. */
export type Runner<R> = ReturnType<typeof runnerOn<R>>

/** Closes a scope the facade opened. */
export const closeScope = (scope: Scope.CloseableScope): Promise<void> =>
  Effect.runPromise(Scope.close(scope, Exit.void))
