/**
 * @internal
 */
import type * as Http from "node:http"
import * as Zlib from "node:zlib"

export interface Sink {
  readonly write: (text: string) => void
  readonly end: () => void
  readonly destroy: () => void
  /** Destroys the socket once everything written so far has been handed to the kernel. */
  readonly destroyAfterFlush: () => void
  readonly isOpen: () => boolean
  readonly onClose: (f: () => void) => void
}

export const openSse = (res: Http.ServerResponse, gzip: boolean, headers: Record<string, string> = {}): Sink => {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...(gzip ? { "content-encoding": "gzip" } : {}),
    ...headers
  })
  res.flushHeaders()
  let ending = false
  let inFlight = 0
  let waiters: Array<() => void> = []
  const settled = () => {
    inFlight--
    if (inFlight === 0) {
      const ready = waiters
      waiters = []
      ready.forEach((f) => f())
    }
  }
  const whenDrained = (f: () => void) => (inFlight === 0 ? f() : waiters.push(f))
  const raw = (chunk: string | Buffer) => {
    if (res.destroyed || res.writableEnded) return
    inFlight++
    res.write(chunk, settled)
  }
  const isOpen = () => !ending && !res.destroyed && !res.writableEnded
  const gz = gzip ? Zlib.createGzip() : undefined
  if (gz !== undefined) {
    gz.on("data", raw)
    gz.on("end", () => {
      if (!res.destroyed) res.end()
    })
    gz.on("error", () => res.destroy())
  }
  const flushed = (f: () => void) =>
    gz === undefined ? whenDrained(f) : gz.flush(Zlib.constants.Z_SYNC_FLUSH, () => setImmediate(() => whenDrained(f)))
  return {
    write: (text) => {
      if (!isOpen()) return
      if (gz === undefined) return raw(text)
      gz.write(text)
      gz.flush(Zlib.constants.Z_SYNC_FLUSH)
    },
    end: () => {
      if (!isOpen()) return
      ending = true
      if (gz === undefined) res.end()
      else gz.end()
    },
    destroy: () => {
      ending = true
      res.destroy()
    },
    destroyAfterFlush: () => {
      if (!isOpen()) return
      ending = true
      flushed(() => res.destroy())
    },
    isOpen,
    onClose: (f) => res.on("close", f)
  }
}
