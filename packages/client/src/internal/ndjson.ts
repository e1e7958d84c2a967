/**
 * Incremental newline-delimited JSON framing. Chunks are kept as they arrive and joined only
 * once a line is complete, so a large message costs linear time, never a rescan per chunk.
 *
 * @internal
 */

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

/** @internal */
export const makeLineDecoder = (maxLineBytes: number, handlers: LineHandlers): LineDecoder => {
  let pending: Array<Uint8Array> = []
  let pendingBytes = 0
  let discarding = false

  const emit = (line: Buffer) => {
    const text = line.toString("utf8")
    if (text.length === 0 || (text.length < 3 && text.trim().length === 0)) return
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      handlers.onMalformed("invalid-json", line.length, summarize(text.slice(0, 4096)))
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
        pending = []
        pendingBytes += size
      } else if (size > 0) {
        pending.push(chunk.subarray(start, end))
        pendingBytes += size
      }
      if (nl === -1) return
      if (discarding) {
        handlers.onMalformed("too-long", pendingBytes, "")
        discarding = false
      } else if (pending.length > 0) {
        const line = pending.length === 1 ?
          Buffer.from(pending[0]!.buffer, pending[0]!.byteOffset, pending[0]!.length)
          : Buffer.concat(pending, pendingBytes)
        pending = []
        emit(line)
      }
      pendingBytes = 0
      start = nl + 1
    }
  }

  const end = () => {
    if (discarding) {
      handlers.onMalformed("too-long", pendingBytes, "")
    } else if (pending.length > 0) {
      emit(Buffer.concat(pending, pendingBytes))
    }
    pending = []
    pendingBytes = 0
    discarding = false
  }

  return { push, end }
}

/**
 * A structural summary of a malformed line, never its payload: JSON-RPC method and id when
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

/** @internal */
export const encodeLine = (message: object): string => JSON.stringify(message) + "\n"
