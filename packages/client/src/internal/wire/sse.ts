/**
 * A bounded, incremental Server-Sent Events parser ("interpreting an event stream" in the WHATWG
 * HTML standard), plus the limits an untrusted server needs: one event's size and the length and
 * alphabet of event ids (they are echoed back in `Last-Event-ID`).
 *
 * Line ends are found in the raw bytes (CR and LF never occur inside a UTF-8 sequence), so sizes
 * are exact byte counts, and no byte is searched twice. One streaming `TextDecoder` decodes the
 * complete lines of a chunk in one call; a line that spans chunks is decoded piece by piece as it
 * arrives and joined once when it ends, so a 32 MiB event in 64 KiB chunks costs linear time.
 *
 * Values are slices of the decoded chunk (V8 may keep the chunk's text alive while a short value
 * is); the callbacks run synchronously inside `push` and must not call `push` or `end`.
 *
 * @internal
 */

/** @internal */
export interface SseEvent {
  /** The `event` field, `"message"` when absent or empty. */
  readonly event: string
  readonly data: string
  /** The valid `id` field of this event, if it had one. */
  readonly id: string | undefined
}

/** @internal */
export type SseProblem = "event-too-large" | "invalid-event-id"

/** @internal */
export interface SseParserOptions {
  /**
   * Bound on one event, in bytes as received: its `data` lines so far (whole lines, field name
   * included) plus the line being read, whatever its field. Beyond it the event is reported once
   * and skipped up to its blank line, buffering nothing; the dropped event's id is not committed.
   */
  readonly maxEventBytes: number
  /** Longest accepted `id`; longer ids are reported and ignored. */
  readonly maxEventIdLength: number
  readonly onEvent: (event: SseEvent) => void
  /** The raw `retry` value in milliseconds; the consumer applies its own floor and ceiling. */
  readonly onRetry: (millis: number) => void
  /**
   * `detail` is "N bytes", "length N" or "non-printable"; it never contains stream content. For an
   * oversized event, `head` is the start of its data (at most {@link MAX_HEAD_LENGTH} characters,
   * `""` when the oversized line is not a `data` line), for telling what was lost; else `""`.
   */
  readonly onProblem: (problem: SseProblem, detail: string, head: string) => void
}

/** The longest `head` of a skipped event handed to `onProblem`. @internal */
export const MAX_HEAD_LENGTH = 256

/** @internal */
export interface SseParser {
  readonly push: (chunk: Uint8Array) => void
  /**
   * The stream ended: an unterminated event is dropped, as the standard says. The parser is then
   * ready for the stream of a reconnection (its BOM is stripped again); `lastEventId` is kept.
   */
  readonly end: () => void
  /**
   * The id to send as `Last-Event-ID`: the last valid id of a completed (blank-line terminated)
   * event; `undefined` before any, or after an empty `id` field reset it.
   */
  readonly lastEventId: () => string | undefined
  /** Bytes of skipped (oversized) events so far, line ends excepted, over the parser's life. */
  readonly skippedBytes: () => number
}

const LF = 0x0a
const CR = 0x0d
const COLON = 0x3a
const SPACE = 0x20
const BOM = "\uFEFF"
const DIGITS = /^[0-9]+$/

const isPrintableAscii = (value: string): boolean => {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if (code < 0x20 || code > 0x7e) return false
  }
  return true
}

/**
 * Whether the line `source[start, end)` is the field `name` (whose first character the caller
 * matched): the name, then a colon or nothing.
 */
const isField = (source: string, start: number, end: number, name: string): boolean => {
  const after = start + name.length
  if (after > end || (after < end && source.charCodeAt(after) !== COLON)) return false
  for (let i = 1; i < name.length; i++) {
    if (source.charCodeAt(start + i) !== name.charCodeAt(i)) return false
  }
  return true
}

/** The value of a field whose name ends at `after`: past the colon and one optional space. */
const fieldValue = (source: string, after: number, end: number): string => {
  if (after >= end - 1) return ""
  return source.slice(source.charCodeAt(after + 1) === SPACE ? after + 2 : after + 1, end)
}

/**
 * One closure over four groups of state, kept in one function because `push` runs per chunk on
 * the hot path of every HTTP transport (each state is a local, not an object's field):
 *
 * - stream: at its start (a BOM is still to strip), a CR ended the last chunk (skip an LF next),
 *   and the standard's last event id (committed) and id buffer (this event's);
 * - line: the decoded pieces and byte count of a line carried across chunks, and whether the
 *   decoder holds part of a character;
 * - event: its data lines and their bytes, type and id, and `discarding` — an event over
 *   `maxEventBytes` is skipped up to its blank line, buffering nothing (`startDiscarding` enters
 *   it, an empty line leaves it, `end` resets it);
 * - chunk: the text of the chunk's complete lines, decoded once on first need, and the cursors
 *   that walk it in step with the bytes (`locateLine`), reset by every `push`.
 *
 * @internal
 */
export const makeSseParser = (options: SseParserOptions): SseParser => {
  const { maxEventBytes, maxEventIdLength, onEvent, onProblem, onRetry } = options
  // ignoreBOM: the decoder is flushed at every line end, which would re-arm its own BOM stripping.
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true })

  // stream state
  let atStreamStart = true
  let skipLeadingLF = false
  let committedId = "" // the standard's "last event ID string"
  let idBuffer = "" // the standard's "last event ID buffer"

  // current line
  let linePieces: Array<string> = []
  let lineBytes = 0
  let decoderHolds = false

  // current event
  let firstDataLine: string | undefined = undefined
  let moreDataLines: Array<string> = []
  let dataBytes = 0
  let eventType = ""
  let eventId: string | undefined = undefined
  let discarding = false
  let skipped = 0

  const decode = (bytes: Uint8Array, lineEnds: boolean): void => {
    let text: string
    if (lineEnds) {
      if (bytes.length === 0 && !decoderHolds) return
      text = decoder.decode(bytes)
      decoderHolds = false
    } else {
      if (bytes.length === 0) return
      text = decoder.decode(bytes, { stream: true })
      decoderHolds = true
    }
    if (text.length === 0) return
    if (atStreamStart) {
      // This is the first decoded text and nothing before it was dropped: it starts at byte 0.
      atStreamStart = false
      if (text.charCodeAt(0) === 0xfeff) {
        text = text.slice(BOM.length)
        if (text.length === 0) return
      }
    }
    linePieces.push(text)
  }

  /**
   * The start of the event's data, when an event becomes too large while `line` (the bytes of its
   * current line not yet decoded, of which `room` fit the cap) is read: from its first data line,
   * else from the current line if that is one. Only bytes within the cap are read, so the head
   * does not depend on where the chunks were cut. Runs once per skipped event, on a few hundred bytes.
   */
  const headOf = (line: Uint8Array, room: number): string => {
    if (firstDataLine !== undefined) return firstDataLine.slice(0, MAX_HEAD_LENGTH)
    let start = ""
    for (const piece of linePieces) {
      start += piece
      if (start.length >= MAX_HEAD_LENGTH + 6) break
    }
    // The line's own decoder, so a character split before `line` is completed; it is reset next.
    if (start.length < MAX_HEAD_LENGTH + 6) {
      start += decoder.decode(line.subarray(0, Math.min(room, (MAX_HEAD_LENGTH + 6) * 4)), { stream: true })
    }
    if (start.charCodeAt(0) === 0xfeff) start = start.slice(1)
    if (!start.startsWith("data") || (start.length > 4 && start.charCodeAt(4) !== COLON)) return ""
    return start.slice(start.charCodeAt(5) === SPACE ? 6 : 5, MAX_HEAD_LENGTH + 6).slice(0, MAX_HEAD_LENGTH)
  }

  const resetEvent = () => {
    firstDataLine = undefined
    if (moreDataLines.length > 0) moreDataLines = []
    dataBytes = 0
    eventType = ""
    eventId = undefined
  }

  const startDiscarding = (size: number, line: Uint8Array, room: number) => {
    onProblem("event-too-large", `${size} bytes`, headOf(line, room))
    skipped += size
    discarding = true
    linePieces = []
    resetEvent()
    // The dropped event must not move Last-Event-ID: we never delivered it.
    idBuffer = committedId
    decoder.decode()
    decoderHolds = false
  }

  const dispatch = () => {
    committedId = idBuffer
    if (firstDataLine !== undefined) {
      let data = firstDataLine
      if (moreDataLines.length > 0) {
        moreDataLines.unshift(firstDataLine)
        data = moreDataLines.join("\n")
      }
      const event: SseEvent = { event: eventType === "" ? "message" : eventType, data, id: eventId }
      resetEvent()
      onEvent(event)
    } else {
      resetEvent()
    }
  }

  const processId = (value: string) => {
    if (value.length > maxEventIdLength) {
      onProblem("invalid-event-id", `length ${value.length}`, "")
    } else if (!isPrintableAscii(value)) {
      // Covers the standard's NUL rule too; a header could not carry other controls either.
      onProblem("invalid-event-id", "non-printable", "")
    } else {
      idBuffer = value
      eventId = value
    }
  }

  /**
   * Interprets the line `source[start, end)` of `bytes` bytes. Only the four known field names
   * are matched, so a line is never searched for its colon (comments and unknown fields are
   * ignored anyway).
   */
  const processLine = (source: string, start: number, end: number, bytes: number) => {
    if (start === end) {
      dispatch()
      return
    }
    switch (source.charCodeAt(start)) {
      case 0x64: {
        if (isField(source, start, end, "data")) {
          const value = fieldValue(source, start + 4, end)
          if (firstDataLine === undefined) firstDataLine = value
          else moreDataLines.push(value)
          dataBytes += bytes
        }
        break
      }
      case 0x65: {
        if (isField(source, start, end, "event")) eventType = fieldValue(source, start + 5, end)
        break
      }
      case 0x69: {
        if (isField(source, start, end, "id")) processId(fieldValue(source, start + 2, end))
        break
      }
      case 0x72: {
        if (isField(source, start, end, "retry")) {
          const value = fieldValue(source, start + 5, end)
          if (DIGITS.test(value)) onRetry(Number(value))
        }
        break
      }
    }
  }

  /** Ends a line that began in an earlier chunk: its pieces were decoded as they came. */
  const endCarriedLine = () => {
    if (!discarding) {
      const line = linePieces.length === 0 ? "" : linePieces.length === 1 ? linePieces[0]! : linePieces.join("")
      linePieces = []
      processLine(line, 0, line.length, lineBytes)
    }
    lineBytes = 0
  }

  /** Takes the bytes of a line that continues into the next chunk, or ends one carried over. */
  const appendPiece = (bytes: Uint8Array, lineEnds: boolean) => {
    const size = bytes.length
    if (discarding) {
      lineBytes += size
      skipped += size
    } else if (dataBytes + lineBytes + size > maxEventBytes) {
      startDiscarding(dataBytes + lineBytes + size, bytes, maxEventBytes - dataBytes - lineBytes)
      lineBytes += size
    } else {
      lineBytes += size
      decode(bytes, lineEnds)
    }
  }

  // The complete lines that start in the current chunk are decoded together, on first need, up to
  // the chunk's last line end. When each byte became one UTF-16 unit (`textAligned`), byte offsets
  // index the text; otherwise a second cursor walks the text's own line ends in step with the bytes.
  let text: string | undefined = undefined
  let textStart = 0
  let textAligned = true
  let textPos = 0
  let textCR = -2
  let textLF = -2

  /** Finds the byte line [start, end) in `text`, as [textLineStart, textLineEnd). */
  let textLineStart = 0
  let textLineEnd = 0
  const locateLine = (chunk: Uint8Array, start: number, end: number, regionEnd: number): string => {
    if (text === undefined) {
      text = decoder.decode(chunk.subarray(start, regionEnd))
      textStart = start
      textAligned = text.length === regionEnd - start
      textPos = 0
      textCR = -2
      textLF = -2
    }
    if (textAligned) {
      textLineStart = start - textStart
      textLineEnd = end - textStart
      return text
    }
    if (textCR !== -1 && textCR < textPos) textCR = text.indexOf("\r", textPos)
    if (textLF !== -1 && textLF < textPos) textLF = text.indexOf("\n", textPos)
    // The region ends with a line end, so one is always found.
    const lineEnd = textCR === -1 ? textLF : textLF === -1 ? textCR : Math.min(textCR, textLF)
    textLineStart = textPos
    textLineEnd = lineEnd
    textPos = text.charCodeAt(lineEnd) === CR && text.charCodeAt(lineEnd + 1) === LF ? lineEnd + 2 : lineEnd + 1
    return text
  }

  /** A line that starts and ends in this chunk, at bytes [start, end). */
  const completeLine = (chunk: Uint8Array, start: number, end: number, regionEnd: number) => {
    const size = end - start
    const inStep = text !== undefined && !textAligned
    if (discarding) {
      if (inStep) locateLine(chunk, start, end, regionEnd)
      if (size === 0) discarding = false
      skipped += size
    } else if (dataBytes + size > maxEventBytes) {
      if (inStep) locateLine(chunk, start, end, regionEnd)
      startDiscarding(dataBytes + size, chunk.subarray(start, end), maxEventBytes - dataBytes)
    } else if (size === 0) {
      if (inStep) locateLine(chunk, start, end, regionEnd)
      dispatch()
    } else {
      const source = locateLine(chunk, start, end, regionEnd)
      const from = atStreamStart && source.charCodeAt(textLineStart) === 0xfeff ? textLineStart + 1 : textLineStart
      processLine(source, from, textLineEnd, size)
    }
    atStreamStart = false
  }

  /** The byte position of the next `char` at or after byte `pos`, searched in the aligned text. */
  const textIndexOf = (char: string, pos: number): number => {
    // No line end follows the region, so "none in the text" is "none in the chunk".
    const found = text!.indexOf(char, pos - textStart)
    return found === -1 ? -1 : found + textStart
  }

  const push = (chunk: Uint8Array): void => {
    const length = chunk.length
    if (length === 0) return
    let pos = 0
    if (skipLeadingLF) {
      skipLeadingLF = false
      if (chunk[0] === LF) pos = 1
    }
    // The next CR and LF at or after `pos` (-1: none left), so each is searched for once per chunk.
    let nextCR = -2
    let nextLF = -2
    let regionEnd = -1
    text = undefined
    while (pos < length) {
      if (text !== undefined && textAligned) {
        // Same positions, and searching a string is several times faster than a Uint8Array.
        if (nextCR !== -1 && nextCR < pos) nextCR = textIndexOf("\r", pos)
        if (nextLF !== -1 && nextLF < pos) nextLF = textIndexOf("\n", pos)
      } else {
        if (nextCR !== -1 && nextCR < pos) nextCR = chunk.indexOf(CR, pos)
        if (nextLF !== -1 && nextLF < pos) nextLF = chunk.indexOf(LF, pos)
      }
      const end = nextCR === -1 ? nextLF : nextLF === -1 ? nextCR : Math.min(nextCR, nextLF)
      if (end === -1) {
        appendPiece(chunk.subarray(pos), false)
        break
      }
      if (lineBytes > 0) {
        appendPiece(chunk.subarray(pos, end), true)
        atStreamStart = false
        endCarriedLine()
      } else {
        if (regionEnd === -1) {
          regionEnd = Math.max(nextCR === -1 ? -1 : chunk.lastIndexOf(CR), chunk.lastIndexOf(LF)) + 1
        }
        completeLine(chunk, pos, end, regionEnd)
      }
      if (chunk[end] === CR) {
        if (end + 1 === length) {
          skipLeadingLF = true
          break
        }
        pos = chunk[end + 1] === LF ? end + 2 : end + 1
      } else {
        pos = end + 1
      }
    }
    text = undefined
  }

  const end = (): void => {
    if (decoderHolds) decoder.decode()
    decoderHolds = false
    linePieces = []
    lineBytes = 0
    discarding = false
    resetEvent()
    idBuffer = committedId
    atStreamStart = true
    skipLeadingLF = false
  }

  return {
    push,
    end,
    lastEventId: () => committedId === "" ? undefined : committedId,
    skippedBytes: () => skipped
  }
}
