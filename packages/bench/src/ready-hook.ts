/**
 * Preloaded into the stdio server by the connect benchmark (`node --import …/ready-hook.js`):
 * when the server prints its ready line on stderr, appends the wall-clock time (ms since the
 * epoch, sub-millisecond) to the file named by `BENCH_READY_FILE`, so the worker can tell how
 * long its client took after the server was ready.
 *
 * @since 0.1.0
 */
import { appendFileSync } from "node:fs"

const file = process.env.BENCH_READY_FILE
if (file !== undefined && file !== "") {
  const stderr = process.stderr
  const write = stderr.write.bind(stderr) as (...args: Array<unknown>) => boolean
  let seen = false
  stderr.write = ((...args: Array<unknown>): boolean => {
    if (!seen && String(args[0]).includes("serving stdio")) {
      seen = true
      appendFileSync(file, `${performance.timeOrigin + performance.now()}\n`)
    }
    return write(...args)
  }) as typeof stderr.write
}
