/**
 * What the server sends unasked: the one notification router of a connection and the answers
 * to the server's requests (legacy: `ping`, elicitation, sampling, roots through the handlers).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Handlers from "../../Handlers.js"
import { ServerError } from "../../McpError.js"
import * as Protocol from "../../Protocol.js"
import type * as RpcPeer from "../../RpcPeer.js"
import type { Params, Shared } from "./core.js"
import * as Lists from "./lists.js"
import * as LogMessage from "./logMessage.js"

/** What a session's peer is given for the server's messages. @internal */
export interface Router {
  readonly onNotification: (method: string, params: Params) => void
  readonly onRequest: RpcPeer.RequestHandler
}

/** @internal */
/** What the router reads: the caches it invalidates and the subscriptions it feeds. @internal */
export type Needs = Pick<Shared, "server" | "options" | "cache" | "shared" | "listens">

/**
 * `runFork` is the connection's, shared with its session part: each `Effect.runtime()` keeps a
 * copy of the fiber's refs per connection.
 *
 * @internal
 */
export const make = (
  core: Needs,
  runFork: (effect: Effect.Effect<unknown>) => unknown
): Router => {
  const { cache, listens, options, server, shared } = core

  // The client's own bookkeeping (caches) runs before the host's listeners, so a listener that
  // re-lists always re-fetches.
  const onNotification = (method: string, received: Params) => {
    // Server log lines reach listeners and the local log escaped and bounded.
    const params = method === "notifications/message" ? LogMessage.sanitize(received) : received
    // 1. Subscription bookkeeping: an acknowledgement, or a server-side teardown.
    const meta = Predicate.isRecord(params?._meta) ? params._meta : undefined
    const subscriptionId = meta?.[Protocol.MetaKey.subscriptionId]
    const subscription = typeof subscriptionId === "number" ? listens.get(subscriptionId) : undefined
    if (subscription !== undefined && method === "notifications/subscriptions/acknowledged") {
      subscription.acknowledge(Predicate.isRecord(params?.notifications) ? params.notifications : {})
    }
    if (method === "notifications/cancelled" && typeof params?.requestId === "number") {
      listens.get(params.requestId)?.end()
    }
    if (method === "notifications/message") {
      const line = `${server}${typeof params?.logger === "string" ? ` [${params.logger}]` : ""}: ${
        String(params?.data)
      }`
      runFork(Effect.logDebug(line))
    }
    // 2. Cache invalidation.
    const stale = Lists.invalidate(cache, method, params)
    // Other connections sharing the store learn it from the store.
    if (shared !== undefined && stale.length > 0) runFork(Effect.forEach(stale, shared.forget, { discard: true }))
    // 3. The subscription's own consumer (queued: it never runs here), 4. host listeners.
    if (subscription !== undefined && method !== "notifications/subscriptions/acknowledged") {
      subscription.offer(method, params)
    }
    options.onNotification(server, method, params)
  }

  const onRequest: RpcPeer.RequestHandler = (method, params) => {
    if (method === "ping") return Effect.succeed({})
    const served = Handlers.serve(options.handlers, method, params ?? {}, "legacy")
    if (served === undefined) return undefined
    return Effect.catchAll(served, (error) =>
      error instanceof Handlers.InvalidInputRequest
        ? Effect.fail(new ServerError({ server, method, code: -32602, message: error.message }))
        : Effect.zipRight(
          Effect.logWarning(`${server}: the ${method} handler failed: ${String(error)}`),
          Effect.fail(new ServerError({ server, method, code: -32603, message: "Internal error" }))
        ))
  }

  return { onNotification, onRequest }
}
