/**
 * The bounded queue between a subscription's router step and its consumer. Bounded by count
 * and by bytes (method name and params are charged); overflow evicts the oldest notification
 * about the same thing (same method and uri/taskId), else the oldest of whichever thing has
 * most queued. One payload larger than the whole byte budget is held in a single slot of its
 * own, so it is neither lost for being large nor able to displace everything else.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"

interface Item {
  readonly method: string
  readonly params: Record<string, unknown> | undefined
  readonly key: string
  readonly bytes: number
  readonly oversize: boolean
}

/** @internal */
export interface NotificationQueue<E> {
  readonly offer: (method: string, params: Record<string, unknown> | undefined) => void
  /** The next notification; `None` once ended, the error once failed. */
  readonly take: Effect.Effect<{ method: string; params: Record<string, unknown> | undefined }, Option.Option<E>>
  readonly end: () => void
  readonly fail: (error: E) => void
  readonly pending: () => number
  readonly pendingBytes: () => number
  readonly dropped: () => number
}

const keyOf = (method: string, params: Record<string, unknown> | undefined) => {
  const about = typeof params?.uri === "string" ? params.uri : typeof params?.taskId === "string" ? params.taskId : ""
  return `${method}\u0000${about}`
}

const sizeOf = (method: string, params: Record<string, unknown> | undefined) => {
  try {
    return method.length + (params === undefined ? 0 : JSON.stringify(params).length)
  } catch {
    return method.length
  }
}

/** @internal */
export const make = <E>(maxCount: number, maxBytes: number): NotificationQueue<E> => {
  const items: Array<Item> = []
  let bytes = 0
  let dropped = 0
  let done: { readonly _tag: "End" } | { readonly _tag: "Fail"; readonly error: E } | undefined
  let waiter: Deferred.Deferred<void> | undefined

  const wake = () => {
    if (waiter !== undefined) {
      Deferred.unsafeDone(waiter, Effect.void)
      waiter = undefined
    }
  }

  const remove = (index: number) => {
    const [item] = items.splice(index, 1)
    if (item !== undefined && !item.oversize) bytes -= item.bytes
    dropped++
  }

  /** Evicts one entry to relieve `pressure`; only charged entries relieve byte pressure. */
  const evict = (key: string, pressure: "count" | "bytes") => {
    const eligible = (item: Item) => pressure === "count" || !item.oversize
    const same = items.findIndex((item) => item.key === key && eligible(item))
    if (same !== -1) return remove(same)
    const counts = new Map<string, number>()
    for (const item of items) if (eligible(item)) counts.set(item.key, (counts.get(item.key) ?? 0) + 1)
    let busiest: string | undefined
    let most = 0
    for (const [k, n] of counts) {
      if (n > most) {
        most = n
        busiest = k
      }
    }
    const index = items.findIndex((item) => item.key === busiest && eligible(item))
    if (index !== -1) remove(index)
  }

  return {
    offer: (method, params) => {
      if (done !== undefined) return
      const size = sizeOf(method, params)
      const key = keyOf(method, params)
      if (size > maxBytes) {
        const previous = items.findIndex((item) => item.oversize)
        if (previous !== -1) remove(previous)
        if (items.length + 1 > maxCount) evict(key, "count")
        items.push({ method, params, key, bytes: size, oversize: true })
      } else {
        while (items.length > 0 && items.length + 1 > maxCount) evict(key, "count")
        while (bytes + size > maxBytes && items.some((item) => !item.oversize)) evict(key, "bytes")
        items.push({ method, params, key, bytes: size, oversize: false })
        bytes += size
      }
      wake()
    },
    take: Effect.suspend(function loop(): Effect.Effect<
      { method: string; params: Record<string, unknown> | undefined },
      Option.Option<E>
    > {
      const item = items.shift()
      if (item !== undefined) {
        if (!item.oversize) bytes -= item.bytes
        return Effect.succeed({ method: item.method, params: item.params })
      }
      if (done?._tag === "End") return Effect.fail(Option.none())
      if (done?._tag === "Fail") return Effect.fail(Option.some(done.error))
      waiter ??= Deferred.unsafeMake<void>(FiberId.none)
      return Effect.flatMap(Deferred.await(waiter), () => Effect.suspend(loop))
    }),
    end: () => {
      done ??= { _tag: "End" }
      wake()
    },
    fail: (error) => {
      done ??= { _tag: "Fail", error }
      wake()
    },
    pending: () => items.length,
    pendingBytes: () => bytes,
    dropped: () => dropped
  }
}
