/**
 * The soak's record of its own calls — each call started and each one settled — kept in a
 * file, not in memory: the live memory the leak rule samples is then the client's (and the
 * servers'), not a record that grows by ~180 bytes with every call.
 *
 * @since 0.1.0
 */
import * as Fs from "node:fs"
import type { Recorder } from "./driver.js"
import type { Outcome, Settlement } from "./invariants.js"

/** Lines held before they are appended to the file. */
const BATCH = 512

/** @since 0.1.0 */
export interface Records {
  readonly record: Recorder
  /** Writes what is still held, so the process holds no part of the record. */
  readonly flush: () => void
  /** Everything recorded, read back from the file. */
  readonly read: () => { readonly started: Array<string>; readonly settlements: Array<Settlement> }
}

/**
 * Records into `file` (emptied first); `onSettled` is told the number of calls settled so far.
 *
 * @since 0.1.0
 */
export const make = (file: string, onSettled: (count: number) => void): Records => {
  Fs.writeFileSync(file, "")
  let held: Array<string> = []
  let settledCount = 0
  const flush = () => {
    if (held.length === 0) return
    Fs.appendFileSync(file, held.join(""))
    held = []
  }
  const write = (line: string) => {
    held.push(line)
    if (held.length >= BATCH) flush()
  }
  const read = () => {
    flush()
    const started: Array<string> = []
    const settlements: Array<Settlement> = []
    for (const line of Fs.readFileSync(file, "utf8").split("\n")) {
      if (line.startsWith("S\t")) started.push(line.slice(2))
      else if (line.startsWith("D\t")) {
        const [token, outcome] = JSON.parse(line.slice(2)) as [string, Outcome]
        settlements.push({ token, outcome })
      }
    }
    return { started, settlements }
  }
  return {
    record: {
      started: (token) => write(`S\t${token}\n`),
      settled: ({ outcome, token }) => {
        write(`D\t${JSON.stringify([token, outcome])}\n`)
        onSettled(++settledCount)
      }
    },
    flush,
    read
  }
}
