/**
 * Incremental newline-delimited JSON framing: each chunk is scanned once for newlines and
 * decoded once, so a large message costs linear time, never a rescan per chunk.
 *
 * @internal
 */
import { escapeControl } from "../escape.js"

/** @internal */
export interface LineDecoder {
  readonly push: (chunk: Uint8Array) => void
  readonly end: () => void
}

/** @internal */
export interface LineHandlers {
  readonly onValue: (value: unknown) => void
  readonly onMalformed: (reason: "invalid-json" | "too-long", bytes: number, excerpt: string) => void
}

const NEWLINE = 0x0a
/** Characters of a non-JSON line shown in its summary. */
const MAX_EXCERPT = 120

/** @internal */
export const makeLineDecoder = (maxLineBytes: number, handlers: LineHandlers): LineDecoder => {
  // A line longer than one chunk is kept as text decoded chunk by chunk (the decoder carries a
  // character split across chunks), not as buffers joined at the end: each chunk is released as
  // soon as it is decoded, so a large message costs its text and its parsed value, not also a
  // copy of its bytes.
  // BOMs are kept by the decoder and a line's leading one dropped here: whether a decoder strips
  // a BOM that follows a character split across chunks differs between Node versions (24 does).
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true })
  let pendingText = ""
  let pendingBytes = 0
  let discarding = false

  const emit = (line: string, bytes: number) => {
    const text = line.charCodeAt(0) === 0xfeff ? line.slice(1) : line
    if (text.length === 0 || (text.length < 3 && text.trim().length === 0)) return
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      handlers.onMalformed("invalid-json", bytes, describeLine(text.slice(0, 4096)))
      return
    }
    handlers.onValue(value)
  }

  const push = (chunk: Uint8Array) => {
    let start = 0
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start)
      const end = nl === -1 ? chunk.length : nl
      const size = end - start
      if (discarding) {
        pendingBytes += size
      } else if (pendingBytes + size > maxLineBytes) {
        discarding = true
        pendingText = ""
        decoder.decode()
        pendingBytes += size
      } else if (nl === -1) {
        pendingText += decoder.decode(chunk.subarray(start, end), { stream: true })
        pendingBytes += size
      } else if (pendingBytes === 0) {
        // The whole line is in this chunk (the common case): one decode, no concatenation.
        emit(decoder.decode(chunk.subarray(start, end)), size)
        start = nl + 1
        continue
      } else {
        pendingBytes += size
        const text = pendingText + decoder.decode(chunk.subarray(start, end))
        pendingText = ""
        const bytes = pendingBytes
        pendingBytes = 0
        emit(text, bytes)
        start = nl + 1
        continue
      }
      if (nl === -1) return
      if (discarding) {
        handlers.onMalformed("too-long", pendingBytes, "")
        discarding = false
      }
      pendingBytes = 0
      start = nl + 1
    }
  }

  const end = () => {
    if (discarding) {
      handlers.onMalformed("too-long", pendingBytes, "")
    } else if (pendingBytes > 0) {
      emit(pendingText + decoder.decode(), pendingBytes)
    }
    pendingText = ""
    pendingBytes = 0
    discarding = false
  }

  return { push, end }
}

/**
 * A structural summary of a malformed message, never its payload: JSON-RPC method and id when
 * they can be spotted, else nothing.
 *
 * @internal
 */
export const summarize = (text: string): string => {
  const method = /"method"\s*:\s*"([A-Za-z0-9_/.$-]{1,64})"/.exec(text)?.[1]
  const id = /"id"\s*:\s*("?[A-Za-z0-9_-]{1,32}"?)/.exec(text)?.[1]
  const parts: Array<string> = []
  if (method !== undefined) parts.push(`method=${method}`)
  if (id !== undefined) parts.push(`id=${id}`)
  return parts.join(" ")
}

/**
 * A malformed line as its log shows it. Text that looks like JSON (a message that broke) gets
 * its {@link summarize structural summary}; other text (a server logging to stdout, a banner)
 * is shown: its first characters, quoted and escaped.
 *
 * @internal
 */
export const describeLine = (text: string): string => {
  const trimmed = text.trim()
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) return summarize(text)
  const shown = trimmed.length > MAX_EXCERPT ? `${trimmed.slice(0, MAX_EXCERPT)}…` : trimmed
  return `"${escapeControl(shown, MAX_EXCERPT + 1)}"`
}

/** @internal */
export const encodeLine = (message: object): string => JSON.stringify(message) + "\n"
