/**
 * The 2026-07-28 discovery of a connection, kept as a cached result like any other (DIGEST §7):
 * fresh for its ttlMs, then re-fetched before the next capability check — at most once a minute,
 * since a TTL is not a polling interval and a `ttlMs: 0` would otherwise double every request; a
 * server that stopped offering 2026-07-28 is detected afresh, new capabilities replace the old ones.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { ConnectError } from "../../McpError.js"
import * as Protocol from "../../Protocol.js"
import * as Limits from "../limits.js"
import type { Current, Session, Shared } from "./core.js"
import * as ResultCache from "./resultCache.js"

/** The discovery is public: one per connection, whatever the credential. */
const DISCOVERY_CONTEXT: ResultCache.CacheContext = { meta: "", authorization: undefined }

/** @internal */
export interface Discovery {
  /** Caches a discovery just made (an opening's). */
  readonly remember: (negotiated: Protocol.Negotiated) => Effect.Effect<void>
  /** The session, its discovery re-fetched first once its `ttlMs` lapsed. */
  readonly discovered: Effect.Effect<Session, ConnectError>
}

/** @internal */
export const make = (options: {
  readonly core: Pick<Shared, "server" | "defaultTimeoutMs" | "identity" | "cache">
  readonly discoverTimeoutMs: number
  readonly current: Current
  /** The open session (opening one when there is none). */
  readonly session: Effect.Effect<Session, ConnectError>
}): Discovery => {
  const { current, discoverTimeoutMs, session } = options
  const { cache, defaultTimeoutMs, identity, server } = options.core
  let discoveredAt = 0

  const remember = (negotiated: Protocol.Negotiated) =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      discoveredAt = now
      return cache.set(
        ResultCache.DISCOVER_KEY,
        negotiated,
        { ttlMs: negotiated.ttlMs ?? 0, scope: "public" },
        DISCOVERY_CONTEXT,
        now
      )
    })

  const rediscover = (s: Session): Effect.Effect<Session, ConnectError> =>
    Protocol.detect(server, s.peer, identity, { mode: "modern", discoverTimeoutMs, timeoutMs: defaultTimeoutMs })
      .pipe(
        Effect.matchEffect({
          onSuccess: (negotiated) =>
            Effect.as(remember(negotiated), current.session === s ? (current.session = { ...s, negotiated }) : s),
          onFailure: (error) =>
            error._tag === "UnsupportedProtocolVersionError"
              ? Effect.zipRight(Effect.sync(() => (current.stale = true)), session)
              // The request that needed it reports its own failure; the old discovery stays.
              : Effect.as(Effect.logDebug(`${server}: re-discovery failed (${error._tag})`), s)
        })
      )

  const discovered: Effect.Effect<Session, ConnectError> = Effect.flatMap(
    session,
    (s) =>
      s.negotiated.era === "legacy" ?
        Effect.succeed(s) :
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          cache.fresh(ResultCache.DISCOVER_KEY, DISCOVERY_CONTEXT, now) !== undefined ||
            now - discoveredAt < Limits.MIN_REDISCOVERY_INTERVAL_MS
            ? Effect.succeed(s)
            : rediscover(s))
  )

  return { remember: (negotiated) => Effect.asVoid(remember(negotiated)), discovered }
}
