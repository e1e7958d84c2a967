/**
 * The era file's text: records separated by newlines, each either a snapshot (a JSON object of
 * every entry, keyed by digest: the whole file as versions before the journal wrote it) or one
 * change, `[digest, entry]` or `[digest, null]`, appended with a newline before it. A connect
 * that learns an era appends a line instead of rewriting every entry; the file is compacted
 * into one snapshot once its changes outnumber the snapshot's entries, so a host connecting n
 * new servers writes O(n) bytes in all, not O(n²).
 *
 * A record that does not parse (a torn append, a foreign line) is skipped: this is a cache, and
 * what it loses costs a probe.
 *
 * @internal
 */
import type * as EraCache from "@mcp-effect/client/EraCache"

/** @internal */
export type Entries = Record<string, unknown>

/** What the file says, as read so far. @internal */
export interface Contents {
  /** Prototype-less, so that a key "__proto__" stays a key. Mutated as records apply. */
  entries: Entries
  /** Entries in the last snapshot read or written. */
  snapshotKeys: number
  /** Change records after it. */
  changes: number
}

/** @internal */
export const empty = (): Contents => ({ entries: Object.create(null), snapshotKeys: 0, changes: 0 })

const isRecord = (u: unknown): u is Entries => typeof u === "object" && u !== null && !Array.isArray(u)

const applyRecord = (contents: Contents, value: unknown): void => {
  if (isRecord(value)) {
    // Copied key by key: a spread of a thousand keys walks V8's hidden-class transitions.
    const entries: Entries = Object.create(null)
    let keys = 0
    for (const key of Object.keys(value)) {
      entries[key] = value[key]
      keys++
    }
    contents.entries = entries
    contents.snapshotKeys = keys
    contents.changes = 0
  } else if (Array.isArray(value) && value.length === 2 && typeof value[0] === "string") {
    if (value[1] === null) delete contents.entries[value[0]]
    else contents.entries[value[0]] = value[1]
    contents.changes++
  }
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const NEWLINE = 0x0a

/**
 * Applies the records of `bytes` to `contents`; returns how many bytes were consumed: every
 * record ended by a newline, and the last one too if it parses (the file ends without a
 * newline), so a record still being appended is read again, whole, next time.
 *
 * @internal
 */
export const apply = (contents: Contents, bytes: Uint8Array): number => {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const lastNewline = text.lastIndexOf(NEWLINE)
  if (lastNewline >= 0) {
    for (const line of text.toString("utf8", 0, lastNewline).split("\n")) {
      if (line !== "") applyRecord(contents, parse(line))
    }
  }
  const rest = text.toString("utf8", lastNewline + 1)
  if (rest === "") return text.byteLength
  const last = parse(rest)
  // Not consumed, with the newline before it: read again from there, it starts a record.
  if (last === undefined) return Math.max(lastNewline, 0)
  applyRecord(contents, last)
  return text.byteLength
}

/** Whether `bytes`, read from where the last read stopped, start where a record does. @internal */
export const startsRecord = (bytes: Uint8Array): boolean => bytes.length === 0 || bytes[0] === NEWLINE

/** Applies changes this process appended (and saw land right after what it had read). @internal */
export const applyChanges = (
  contents: Contents,
  changes: ReadonlyArray<readonly [digest: string, entry: EraCache.Entry | null]>
): void => {
  for (const change of changes) applyRecord(contents, change)
}

/** The records appending `changes` (a newline before each). @internal */
export const changeRecords = (
  changes: ReadonlyArray<readonly [digest: string, entry: EraCache.Entry | null]>
): string => {
  let text = ""
  for (const change of changes) text += `\n${JSON.stringify(change)}`
  return text
}

/** The file compacted: one snapshot of `entries`. @internal */
export const snapshot = (entries: Entries): string => JSON.stringify(entries)

/** Changes kept before the first compaction of a small file. */
const COMPACT_AFTER = 64

/** Whether the changes now outnumber the snapshot's entries (and a few): time to compact. @internal */
export const shouldCompact = (contents: Contents): boolean =>
  contents.changes >= Math.max(COMPACT_AFTER, contents.snapshotKeys)
