/**
 * @internal
 */
import type * as Http from "node:http"
import * as Zlib from "node:zlib"
import type { JsonRpcId } from "./httpMessage.js"

export const plain = (res: Http.ServerResponse, status: number, text: string, headers: Record<string, string> = {}) => {
  if (res.headersSent || res.destroyed) return
  res.writeHead(status, { "content-type": "text/plain", "content-length": Buffer.byteLength(text), ...headers })
  res.end(text)
}

export const sendJson = (
  res: Http.ServerResponse,
  status: number,
  value: unknown,
  options: { readonly gzip?: boolean; readonly dead?: boolean; readonly headers?: Record<string, string> } = {}
) => {
  if (res.headersSent || res.destroyed) return
  let body = Buffer.from(JSON.stringify(value), "utf8")
  const headers: Record<string, string | number> = { "content-type": "application/json", ...options.headers }
  if (options.gzip === true) {
    body = Zlib.gzipSync(body)
    headers["content-encoding"] = "gzip"
  }
  if (options.dead === true) {
    // Chunked, so destroying the socket leaves the body without its terminating chunk.
    res.writeHead(status, headers)
    res.write(body, () => res.destroy())
    return
  }
  headers["content-length"] = body.length
  res.writeHead(status, headers)
  res.end(body)
}

export const jsonError = (
  res: Http.ServerResponse,
  status: number,
  code: number,
  message: string,
  extra: { readonly id?: JsonRpcId | undefined; readonly data?: unknown } = {}
) =>
  sendJson(res, status, {
    jsonrpc: "2.0",
    ...(extra.id !== undefined ? { id: extra.id } : {}),
    error: { code, message, ...("data" in extra ? { data: extra.data } : {}) }
  })

/** Writes chunks with backpressure until `next` runs out (then ends) or the client goes away. */
export const pump = (res: Http.ServerResponse, next: () => Buffer | undefined) => {
  const loop = () => {
    while (!res.destroyed && !res.writableEnded) {
      const chunk = next()
      if (chunk === undefined) return res.end()
      if (!res.write(chunk)) return res.once("drain", loop)
    }
  }
  loop()
}
