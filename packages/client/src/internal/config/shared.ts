/**
 * What the host-format readers share: each turns its host's document into the common shape
 * (`{ "mcpServers": { name: entry } }`) that `mcpConfig.decode` validates, so that every
 * value's checks and messages live in one place.
 *
 * @internal
 */
import * as Predicate from "effect/Predicate"

/**
 * A host's document in the common shape, and what the reader noticed on the way.
 *
 * @internal
 */
export interface Converted {
  readonly document: unknown
  readonly warnings: ReadonlyArray<string>
}

/**
 * An entry with some fields renamed (`from` → `to`) and others dropped; the rest is kept, so
 * that unknown fields are warned about by the common decoder.
 *
 * @internal
 */
export const renamed = (
  raw: Record<string, unknown>,
  names: Readonly<Record<string, string>>,
  dropped: ReadonlyArray<string> = []
): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(raw)) {
    if (dropped.includes(key) || value === undefined) continue
    out[names[key] ?? key] = value
  }
  return out
}

/** @internal */
export const mapEntries = (
  servers: Record<string, unknown>,
  entry: (name: string, raw: Record<string, unknown>, warn: (message: string) => void) => unknown,
  warnings: Array<string>
): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(servers).map(([name, raw]) => [
      name,
      Predicate.isRecord(raw) ? entry(name, raw, (message) => warnings.push(`server "${name}": ${message}`)) : raw
    ])
  )
