/**
 * A stream as an async iterable for Promise callers.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { Runner } from "./run.js"
import type { Signal } from "./types.js"

/** A stream as an async iterable whose failures are the errors themselves. */
export const iterableOn =
  <R>(runOn: Runner<R>) => <A, E>(stream: Stream.Stream<A, E, R>, options?: Signal): AsyncIterable<A> => ({
    [Symbol.asyncIterator]: () => {
      const queue: Array<IteratorResult<A>> = []
      let failure: { readonly error: unknown } | undefined
      let wake: (() => void) | undefined
      const push = () => {
        wake?.()
        wake = undefined
      }
      void runOn(
        Stream.runForEach(stream, (value) => Effect.sync(() => (queue.push({ value, done: false }), push()))),
        options
      )
        .then(() => queue.push({ value: undefined, done: true }), (error: unknown) => (failure = { error }))
        .finally(push)
      const next = async (): Promise<IteratorResult<A>> => {
        while (queue.length === 0 && failure === undefined) await new Promise<void>((resolve) => (wake = resolve))
        const item = queue.shift()
        if (item !== undefined) return item
        throw failure!.error
      }
      return { next }
    }
  })
