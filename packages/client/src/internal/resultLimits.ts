/**
 * Result-size governance: a tool result over `maxResultChars` / `maxResultBytes` is cut with a
 * marker naming what was left out, or kept whole in a bounded store under a handle the host reads
 * later. What counts: the text of `text` blocks and of embedded text resources, in order; the
 * `structuredContent`, serialised as JSON, on its own (it is the other view of the same data, and
 * a model is shown one of the two). Images, audio, blobs and links are not counted.
 *
 * @internal
 */
import type * as McpSchema from "../McpSchema.js"

/** @internal */
export interface Limits {
  readonly maxResultChars?: number | undefined
  readonly maxResultBytes?: number | undefined
  readonly overflow?: "truncate" | "handle" | undefined
}

/** The tool `_meta` key by which a server declares how large its results may be. @internal */
export const DECLARED_MAX_KEY = "anthropic/maxResultSizeChars"

/** The most a server's declaration raises the limit to, unless the host says otherwise. @internal */
export const DECLARED_MAX_CEILING = 500_000

/** Most handles a store keeps before it evicts the least recently used. @internal */
export const MAX_HANDLES = 32

/** Where this module writes on a cut result's `_meta`. @internal */
export const CUT_META_KEY = "mcp-effect/resultCut"

/**
 * A slice of a kept result's text.
 *
 * @internal
 * @inline
 */
export interface Slice {
  readonly handle: string
  readonly text: string
  readonly offset: number
  /** The length of the whole text. */
  readonly total: number
  /** What is left after this slice. */
  readonly remaining: number
}

/**
 * The bounded store of whole results, by handle.
 *
 * @internal
 * @inline
 */
export interface Store {
  /** Keeps `result` (and its text, for slices); returns its handle. */
  readonly put: (text: string, result: McpSchema.CallToolResult) => string
  /** A slice of the kept text from `offset` (default 0), at most `length` (default: the rest). */
  readonly read: (handle: string, offset?: number, length?: number) => Slice | undefined
  /** The whole result kept under `handle`. */
  readonly result: (handle: string) => McpSchema.CallToolResult | undefined
  readonly size: () => number
  readonly clear: () => void
}

/** A store of at most `capacity` results, the least recently used evicted first. @internal */
export const makeStore = (capacity: number = MAX_HANDLES): Store => {
  // A Map iterates in insertion order: re-inserting on use keeps the oldest first.
  const entries = new Map<string, { readonly text: string; readonly result: McpSchema.CallToolResult }>()
  let next = 1
  const touch = (handle: string) => {
    const entry = entries.get(handle)
    if (entry === undefined) return undefined
    entries.delete(handle)
    entries.set(handle, entry)
    return entry
  }
  return {
    put: (text, result) => {
      const handle = `result-${next++}`
      entries.set(handle, { text, result })
      while (entries.size > Math.max(capacity, 0)) entries.delete(entries.keys().next().value!)
      return handle
    },
    read: (handle, offset = 0, length) => {
      const entry = touch(handle)
      if (entry === undefined) return undefined
      const total = entry.text.length
      const start = surrogateSafe(entry.text, Math.min(Math.max(0, Math.floor(offset)), total))
      const wanted = length === undefined ? total - start : Math.max(0, Math.floor(length))
      const end = surrogateSafe(entry.text, Math.min(total, start + wanted))
      return { handle, text: entry.text.slice(start, end), offset: start, total, remaining: total - end }
    },
    result: (handle) => touch(handle)?.result,
    size: () => entries.size,
    clear: () => entries.clear()
  }
}

/** `index`, moved back by one when it falls between the halves of a surrogate pair. */
const surrogateSafe = (text: string, index: number): number => {
  if (index <= 0 || index >= text.length) return index
  const before = text.charCodeAt(index - 1)
  return before >= 0xd800 && before <= 0xdbff ? index - 1 : index
}

/** The UTF-8 length of `text`, without encoding it. @internal */
export const utf8Length = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

/**
 * How much of `text` fits in `chars` code units and `bytes` UTF-8 bytes, never splitting a code
 * point, and which bound stopped it (the one without room for the next code point).
 */
const prefixOf = (
  text: string,
  chars: number,
  bytes: number
): { readonly length: number; readonly bytes: number; readonly by: "characters" | "bytes" } => {
  let used = 0
  let i = 0
  while (i < text.length) {
    const code = text.charCodeAt(i)
    const pair = code >= 0xd800 && code <= 0xdbff && i + 1 < text.length
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3
    const width = pair ? 2 : 1
    if (i + width > chars) return { length: i, bytes: used, by: "characters" }
    if (used + size > bytes) return { length: i, bytes: used, by: "bytes" }
    used += size
    i += width
  }
  return { length: i, bytes: used, by: "characters" }
}

/** The server's declared maximum for a tool (`_meta["anthropic/maxResultSizeChars"]`), if any. @internal */
export const declaredMax = (tool: McpSchema.Tool | undefined): number | undefined => {
  const value = tool?._meta?.[DECLARED_MAX_KEY]
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined
}

/**
 * The limits of one call: each field the call's own, else the configured one (the server's,
 * else the client's). A server's declaration raises a configured character limit up to
 * `ceiling` (it never lowers one, nor overrides the call's own). `undefined`: no limit.
 *
 * @internal
 */
export const effective = (
  call: Limits | undefined,
  configured: Limits | undefined,
  declared: number | undefined,
  ceiling: number
): Limits | undefined => {
  let chars = call?.maxResultChars
  if (chars === undefined) {
    chars = configured?.maxResultChars
    if (chars !== undefined && declared !== undefined) chars = Math.max(chars, Math.min(declared, ceiling))
  }
  const bytes = call?.maxResultBytes ?? configured?.maxResultBytes
  if (chars === undefined && bytes === undefined) return undefined
  return { maxResultChars: chars, maxResultBytes: bytes, overflow: call?.overflow ?? configured?.overflow }
}

/**
 * A server's limits: each field the server's own, else the client's; `undefined` when neither
 * sets a limit (then only a call's own limits apply).
 *
 * @internal
 */
export const configured = (server: Limits, client: Limits | undefined): Limits | undefined => {
  const limits = {
    maxResultChars: server.maxResultChars ?? client?.maxResultChars,
    maxResultBytes: server.maxResultBytes ?? client?.maxResultBytes,
    overflow: server.overflow ?? client?.overflow
  }
  return isLimited(limits) || limits.overflow !== undefined ? limits : undefined
}

/** Whether any limit is set in `limits`. @internal */
export const isLimited = (limits: Limits | undefined): boolean =>
  limits !== undefined && (limits.maxResultChars !== undefined || limits.maxResultBytes !== undefined)

const textOf = (block: McpSchema.ContentBlock): string | undefined =>
  block.type === "text"
    ? block.text
    : block.type === "resource" && "text" in block.resource
    ? block.resource.text
    : undefined

const fits = (text: string, chars: number, bytes: number) =>
  text.length <= chars && (text.length * 3 <= bytes || utf8Length(text) <= bytes)

/**
 * Whether `result` is over `limits` (text, or structured content, on its own).
 *
 * @internal
 */
export const isOver = (result: McpSchema.CallToolResult, limits: Limits): boolean => {
  const chars = limits.maxResultChars ?? Infinity
  const bytes = limits.maxResultBytes ?? Infinity
  let total = 0
  let texts: Array<string> | undefined
  for (const block of result.content) {
    const text = textOf(block)
    if (text === undefined) continue
    total += text.length
    ;(texts ??= []).push(text)
  }
  if (total > chars) return true
  if (texts !== undefined && bytes !== Infinity && total * 3 > bytes) {
    let used = 0
    for (const text of texts) used += utf8Length(text)
    if (used > bytes) return true
  }
  if (result.structuredContent === undefined) return false
  return !fits(JSON.stringify(result.structuredContent) ?? "", chars, bytes)
}

const grouped = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",")

/** The marker that ends a cut result's text. @internal */
export const marker = (left: number, unit: "characters" | "bytes", limit: string, handle: string | undefined) =>
  `[… ${grouped(left)} more ${unit} cut by mcp-effect: ${limit}${
    handle === undefined ? "" : `; the whole result is kept as ${handle}`
  }]`

interface Cut {
  readonly content: ReadonlyArray<McpSchema.ContentBlock>
  readonly left: number
  readonly unit: "characters" | "bytes"
}

/** The blocks with their counted text cut to `chars` and `bytes`, or `undefined` when it fits. */
const cutBlocks = (blocks: ReadonlyArray<McpSchema.ContentBlock>, chars: number, bytes: number): Cut | undefined => {
  let charsLeft = chars
  let bytesLeft = bytes
  const kept: Array<McpSchema.ContentBlock> = []
  let unit: "characters" | "bytes" | undefined
  let charsOut = 0
  let bytesOut = 0
  for (const block of blocks) {
    const text = textOf(block)
    if (text === undefined) {
      kept.push(block)
      continue
    }
    if (unit !== undefined) {
      // After the cut: every counted block is left out.
      charsOut += text.length
      if (unit === "bytes") bytesOut += utf8Length(text)
      continue
    }
    const size = bytesLeft === Infinity ? 0 : utf8Length(text)
    if (text.length <= charsLeft && size <= bytesLeft) {
      kept.push(block)
      charsLeft -= text.length
      bytesLeft -= size
      continue
    }
    const prefix = prefixOf(text, charsLeft, bytesLeft)
    unit = prefix.by
    charsOut += text.length - prefix.length
    if (unit === "bytes") bytesOut += size - prefix.bytes
    if (prefix.length > 0) kept.push(withText(block, text.slice(0, prefix.length)))
  }
  return unit === undefined ? undefined : { content: kept, left: unit === "characters" ? charsOut : bytesOut, unit }
}

const withText = (block: McpSchema.ContentBlock, text: string): McpSchema.ContentBlock =>
  block.type === "text"
    ? Object.assign({}, block, { text })
    : block.type === "resource"
    ? Object.assign({}, block, { resource: Object.assign({}, block.resource, { text }) })
    : block

const limitName = (limits: Limits, unit: "characters" | "bytes") =>
  unit === "characters" ? `maxResultChars=${limits.maxResultChars}` : `maxResultBytes=${limits.maxResultBytes}`

/**
 * `result` within `limits`: unchanged when it fits; else its counted text cut, a marker block
 * after what was kept, the structured content dropped when over (a JSON document cannot be cut;
 * without text blocks its serialisation is cut as text instead), and `_meta["mcp-effect/resultCut"]`
 * saying what was done. With `overflow: "handle"` and a `store`, the whole result is kept there
 * and the marker names its handle.
 *
 * @internal
 */
export const apply = (
  result: McpSchema.CallToolResult,
  limits: Limits | undefined,
  store?: Store | undefined
): McpSchema.CallToolResult => {
  if (limits === undefined || !isLimited(limits) || !isOver(result, limits)) return result
  const chars = limits.maxResultChars ?? Infinity
  const bytes = limits.maxResultBytes ?? Infinity
  const hasText = result.content.some((block) => textOf(block) !== undefined)
  const structured = result.structuredContent === undefined
    ? undefined
    : JSON.stringify(result.structuredContent) ?? ""
  const structuredFits = structured === undefined || fits(structured, chars, bytes)
  // Without text blocks, the structured content's serialisation is the text that is cut.
  const blocks: ReadonlyArray<McpSchema.ContentBlock> = hasText || structured === undefined
    ? result.content
    : [...result.content, { type: "text", text: structured }]
  const cut = cutBlocks(blocks, chars, bytes) ?? { content: blocks, left: 0, unit: "characters" as const }
  // Only the structured content was over: what was left out is its serialisation.
  const unit = cut.left > 0 ? cut.unit : (structured ?? "").length > chars ? "characters" : "bytes"
  const left = cut.left > 0 ? cut.left : unit === "bytes" ? utf8Length(structured ?? "") : (structured ?? "").length
  const fullText = hasText || structured === undefined
    ? result.content.flatMap((block) => {
      const text = textOf(block)
      return text === undefined ? [] : [text]
    }).join("\n")
    : structured
  const handle = limits.overflow === "handle" && store !== undefined ? store.put(fullText, result) : undefined
  const { structuredContent: _dropped, ...rest } = result
  const kept: McpSchema.CallToolResult = structuredFits && hasText ? result : rest
  return Object.assign({}, kept, {
    content: [...cut.content, { type: "text" as const, text: marker(left, unit, limitName(limits, unit), handle) }],
    _meta: Object.assign({}, result._meta, {
      [CUT_META_KEY]: {
        left,
        unit,
        limit: unit === "characters" ? limits.maxResultChars : limits.maxResultBytes,
        ...(handle === undefined ? {} : { handle })
      }
    })
  })
}
