/**
 * The end of a server process's stderr, kept for the error that reports its exit: the raw
 * chunks of the last few kilobytes, cut into lines only when an error needs them (most servers
 * write to stderr all their life and never fail).
 *
 * @internal
 */
import { concatBytes } from "../bytes.js"
import { escapeControl } from "../escape.js"
import * as Limits from "../limits.js"

/** @internal */
export interface StderrTail {
  readonly push: (chunk: Uint8Array) => void
  /** The last lines (at most `STDERR_TAIL_LINES`, each cut and escaped), oldest first. */
  readonly lines: () => ReadonlyArray<string>
}

// Enough bytes for the lines kept at their longest, whatever their characters (UTF-8: ≤ 4 bytes).
const BUDGET = Limits.STDERR_TAIL_LINES * (Limits.STDERR_TAIL_LINE + 1) * 4

/** @internal */
export const make = (): StderrTail => {
  const chunks: Array<Uint8Array> = []
  let bytes = 0
  // Whether older output was dropped: the first line kept may then be the end of a longer one.
  let dropped = false
  const push = (chunk: Uint8Array) => {
    chunks.push(chunk)
    bytes += chunk.length
    while (bytes - chunks[0]!.length >= BUDGET) {
      bytes -= chunks.shift()!.length
      dropped = true
    }
  }
  const lines = () => {
    const all = concatBytes(chunks, bytes)
    const text = new TextDecoder().decode(all.length > BUDGET ? all.subarray(all.length - BUDGET) : all)
    const split = text.split(/\r?\n/)
    if (dropped || all.length > BUDGET) split.shift()
    return split
      .filter((line) => line.trim().length > 0)
      .slice(-Limits.STDERR_TAIL_LINES)
      .map((line) => escapeControl(line, Limits.STDERR_TAIL_LINE))
  }
  return { push, lines }
}
