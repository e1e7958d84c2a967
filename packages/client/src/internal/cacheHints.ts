/**
 * A result's freshness hints (`ttlMs`, `cacheScope`) as the spec reads them. Below the layers
 * that read them: the protocol (discovery's `ttlMs`) and the connection's result cache.
 *
 * @internal
 */

/** `ttlMs` as the spec reads it: absent or negative is 0. @internal */
export const ttlOf = (result: unknown): number => {
  const ttl = typeof result === "object" && result !== null ? (result as { ttlMs?: unknown }).ttlMs : undefined
  return typeof ttl === "number" && Number.isFinite(ttl) && ttl > 0 ? ttl : 0
}

/** @internal */
export interface Hints {
  readonly ttlMs: number | undefined
  readonly scope: "public" | "private"
}

/**
 * The freshness hints of a result that may carry none. A 2026-07-28 result is read as the spec
 * says (no `ttlMs`: 0, reused never but kept as the stale fallback; no `cacheScope`: private); a
 * legacy result without hints is kept until a change notification says otherwise.
 *
 * @internal
 */
export const hintsOf = (era: "legacy" | "modern", result: unknown): Hints | undefined =>
  era === "modern"
    ? { ttlMs: ttlOf(result), scope: scopeOf(result) }
    : typeof result === "object" && result !== null && ("ttlMs" in result || "cacheScope" in result)
    ? { ttlMs: ttlOf(result), scope: scopeOf(result) }
    : undefined

/** `cacheScope` as the spec reads it: anything but "public" is private. @internal */
export const scopeOf = (result: unknown): "public" | "private" =>
  typeof result === "object" && result !== null && (result as { cacheScope?: unknown }).cacheScope === "public"
    ? "public"
    : "private"
