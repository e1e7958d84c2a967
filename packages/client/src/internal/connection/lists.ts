/**
 * Lists and reads, and where their caching is decided: pagination of the four lists, the keys
 * and context of the result cache, when a result is stored (hints), served (fresh, or stale on a
 * transient HTTP failure) or dropped (change notifications), and `cacheInfo`.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as HeaderParams from "../../HeaderParams.js"
import type { ConnectError, InputRequiredError } from "../../McpError.js"
import type { RequestOptions, ServerConnection } from "../../ServerConnection.js"
import * as CacheHints from "../cacheHints.js"
import type { Core, Params, Session } from "./core.js"
import * as Decode from "./decode.js"
import * as ResultCache from "./resultCache.js"
import * as SharedResults from "./sharedResults.js"

/** What lists and reads use of the core. @internal */
export type Needs = Pick<
  Core,
  | "server"
  | "maxPages"
  | "cache"
  | "shared"
  | "hostMeta"
  | "logLevel"
  | "session"
  | "isHttp"
  | "send"
  | "requireComplete"
  | "withInput"
>

/** @internal */
export type ListKey = "tools" | "prompts" | "resources" | "resourceTemplates"

/** The cache key of each list. @internal */
export const listKeys: Record<ListKey, string> = {
  tools: "tools/list",
  prompts: "prompts/list",
  resources: "resources/list",
  resourceTemplates: "resources/templates/list"
}

/** The cache key of a read. @internal */
export const readKey = (uri: string) => `resources/read ${uri}`

/** The cache keys a change notification says are stale. @internal */
export const staleKeys = (method: string, params: Params): ReadonlyArray<string> => {
  switch (method) {
    case "notifications/tools/list_changed":
      return [listKeys.tools]
    case "notifications/prompts/list_changed":
      return [listKeys.prompts]
    case "notifications/resources/list_changed":
      return [listKeys.resources, listKeys.resourceTemplates]
    case "notifications/resources/updated":
      return typeof params?.uri === "string" ? [readKey(params.uri)] : []
    default:
      return []
  }
}

/**
 * Drops what a change notification says is stale from the connection's cache (the router calls
 * this before any listener); the keys dropped.
 *
 * @internal
 */
export const invalidate = (cache: ResultCache.ResultCache, method: string, params: Params): ReadonlyArray<string> => {
  const keys = staleKeys(method, params)
  for (const key of keys) cache.delete(key)
  return keys
}

/** The context cached results are bound to: effective `_meta` and the credential. */
const cacheContext = (core: Needs, s: Session): Effect.Effect<ResultCache.CacheContext> =>
  s.negotiated.era === "legacy"
    ? Effect.map(s.peer.authorization, (authorization) => ({ meta: "", authorization }))
    : Effect.zipWith(core.hostMeta, s.peer.authorization, (host, authorization) => ({
      meta: JSON.stringify([host, core.logLevel.current ?? null]),
      authorization
    }))

/** @internal */
export interface Fetched<A> {
  readonly value: A
  readonly hints: { readonly ttlMs: number | undefined; readonly scope: "public" | "private" } | undefined
}

/**
 * Serves a cached result while fresh, else fetches and caches it. On a transient HTTP
 * failure an older copy is served with a warning ("MAY serve stale"); never on stdio or SSE.
 *
 * @internal
 */
export const cached = <A>(
  core: Needs,
  key: string,
  fetch: (
    onAuthorization: (sha256: string | undefined) => void,
    era: "legacy" | "modern"
  ) => Effect.Effect<Fetched<A>, ConnectError | InputRequiredError>
): Effect.Effect<A, ConnectError | InputRequiredError> => {
  const { cache, server, shared } = core
  return Effect.flatMap(
    core.session,
    (s) =>
      Effect.flatMap(cacheContext(core, s), (context) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const reuse = s.peer.reusableCache
          const hit = reuse ? cache.fresh(key, context, now) : undefined
          if (hit !== undefined) {
            return Effect.succeed(hit as A)
          }
          const fromStore = reuse && shared !== undefined
            ? Effect.map(shared.lookup(key, context), (entry) => adopt(cache, key, entry, context, now))
            : Effect.succeed(undefined)
          return Effect.flatMap(fromStore, (found) => {
            if (found !== undefined) return Effect.succeed(found as A)
            let sent = context.authorization
            return fetch((sha256) => (sent = sha256), s.negotiated.era).pipe(
              Effect.tap(({ hints, value }) => {
                if (hints === undefined) return Effect.sync(() => cache.delete(key))
                const bound = { meta: context.meta, authorization: sent }
                cache.set(key, value, hints, bound, now)
                return shared === undefined
                  ? Effect.void
                  : shared.store(key, { value, receivedAt: now, ttlMs: hints.ttlMs, scope: hints.scope }, bound)
              }),
              Effect.map(({ value }) => value),
              Effect.catchIf(
                (error) =>
                  reuse && core.isHttp() &&
                  (error._tag === "TransientServerError" || error._tag === "ConnectionError") &&
                  cache.any(key, context) !== undefined,
                (error) =>
                  Effect.as(
                    Effect.logWarning(`${server}: serving a stale ${key} after ${error._tag}`),
                    cache.any(key, context) as A
                  )
              )
            )
          })
        }))
  )
}

/**
 * Takes an entry another connection shared into the connection's own cache (a stale one too, for
 * serving stale on a failure, unless the own copy is newer); the value when it is fresh.
 */
const adopt = (
  cache: ResultCache.ResultCache,
  key: string,
  entry: SharedResults.Stored | undefined,
  context: ResultCache.CacheContext,
  now: number
): unknown => {
  if (entry === undefined) return undefined
  const fresh = SharedResults.isFresh(entry, now)
  if (fresh || cache.any(key, context) === undefined) {
    cache.set(key, entry.value, { ttlMs: entry.ttlMs, scope: entry.scope }, context, entry.receivedAt)
  }
  return fresh ? entry.value : undefined
}

/**
 * Every page of a list, cached as one result under the smallest `ttlMs` of its pages.
 *
 * @internal
 */
export const listAll = <K extends ListKey, A>(
  core: Needs,
  method: string,
  key: K,
  decode: Decode.Decoder<{ readonly [P in K]: ReadonlyArray<A> } & { readonly nextCursor?: string | undefined }>,
  requestOptions: RequestOptions | undefined
): Effect.Effect<ReadonlyArray<A>, ConnectError> => {
  const { maxPages, server } = core
  return cached(core, listKeys[key], (onAuthorization, era) => {
    const items: Array<A> = []
    const seen = new Set<string>()
    let ttl = Infinity
    let hinted = false
    let scope: "public" | "private" = "public"
    let restarted = false
    // An invalid cursor (-32602) discards the pages collected so far: the walk restarts once.
    const restart = () => {
      items.length = 0
      seen.clear()
      ttl = Infinity
      hinted = false
      scope = "public"
      restarted = true
      return loop(undefined, 1)
    }
    const loop = (cursor: string | undefined, pages: number): Effect.Effect<ReadonlyArray<A>, ConnectError> =>
      Effect.flatMap(
        core.send({
          method,
          params: cursor === undefined ? undefined : { cursor },
          options: requestOptions,
          onAuthorization
        }),
        (raw) =>
          Effect.flatMap(
            core.requireComplete(method, raw),
            () =>
              Effect.flatMap(decode(server, method, raw), (page) => {
                const pageHints = CacheHints.hintsOf(era, raw)
                if (pageHints !== undefined) {
                  hinted = true
                  ttl = Math.min(ttl, pageHints.ttlMs ?? 0)
                  if (pageHints.scope === "private") scope = "private"
                }
                for (const item of page[key]) items.push(item)
                const next = page.nextCursor
                if (next === undefined) return Effect.succeed(items)
                if (seen.has(next)) {
                  return Effect.as(
                    Effect.logWarning(`${server}: ${method} repeated a cursor; stopped after ${pages} pages`),
                    items
                  )
                }
                if (pages >= maxPages) {
                  return Effect.as(
                    Effect.logWarning(`${server}: ${method} stopped at the bound of ${maxPages} pages`),
                    items
                  )
                }
                seen.add(next)
                return Effect.catchIf(
                  loop(next, pages + 1),
                  (error) => !restarted && error._tag === "ServerError" && error.code === -32602,
                  restart
                )
              })
          )
      )
    return Effect.map(loop(undefined, 1), (value) => ({
      value,
      // No hints (only a legacy server sends none): kept until list_changed. Else the smallest ttlMs.
      hints: hinted ? { ttlMs: ttl === Infinity ? 0 : ttl, scope } : { ttlMs: undefined, scope }
    }))
  }) as Effect.Effect<ReadonlyArray<A>, ConnectError>
}

/** A `resources/read`, cached only under a positive `ttlMs`. */
const readResource = (core: Needs): ServerConnection["readResource"] => (uri, requestOptions) =>
  cached(core, readKey(uri), (onAuthorization) => {
    let retried = false
    return core.withInput({
      method: "resources/read",
      params: { uri },
      options: requestOptions,
      headers: { "mcp-name": HeaderParams.encodeValue(uri) },
      onRounds: (wasRetried) => (retried = wasRetried),
      onAuthorization
    }).pipe(
      Effect.flatMap((raw) =>
        Effect.map(Decode.readResource(core.server, "resources/read", raw), (value) => ({
          value,
          // Only a positive ttlMs makes a read reusable, and never a result that answered
          // inputResponses or requestState.
          hints: CacheHints.ttlOf(raw) > 0 && !retried
            ? { ttlMs: CacheHints.ttlOf(raw), scope: CacheHints.scopeOf(raw) }
            : undefined
        }))
      )
    )
  })

/** The lists (but tools, see `tools.ts`), reads and `cacheInfo` of a connection. @internal */
export const make = (core: Needs): Pick<
  ServerConnection,
  "listPrompts" | "listResources" | "listResourceTemplates" | "readResource" | "cacheInfo" | "clearCache"
> => ({
  listPrompts: (requestOptions) => listAll(core, "prompts/list", "prompts", Decode.prompts, requestOptions),
  listResources: (requestOptions) => listAll(core, "resources/list", "resources", Decode.resources, requestOptions),
  listResourceTemplates: (requestOptions) =>
    listAll(core, "resources/templates/list", "resourceTemplates", Decode.templates, requestOptions),
  readResource: readResource(core),
  cacheInfo: (kind, uri) =>
    Effect.map(
      Clock.currentTimeMillis,
      (now) =>
        core.cache.info(
          kind === "read" ? readKey(uri ?? "") : kind === "discover" ? ResultCache.DISCOVER_KEY : listKeys[kind],
          now
        )
    ),
  // Also drops the discovery: the next capability check re-fetches it; and what this connection
  // shared, so that the next call re-fetches.
  clearCache: Effect.zipRight(
    Effect.sync(() => core.cache.clear()),
    core.shared === undefined ? Effect.void : core.shared.forgetAll
  )
})
