/**
 * @internal
 */
import * as Predicate from "effect/Predicate"
import type * as Http from "node:http"

export type JsonRpcId = string | number
export type Message = Record<string, unknown>

export const isObject = (u: unknown): u is Message => Predicate.isRecord(u)

export const idOf = (m: Message): JsonRpcId | undefined =>
  typeof m.id === "string" || typeof m.id === "number" ? m.id : undefined

export const methodOf = (m: Message): string | undefined => typeof m.method === "string" ? m.method : undefined

export const idKey = (id: JsonRpcId): string => typeof id === "number" ? `n${id}` : `s${id}`

export const progressTokenOf = (m: Message): unknown => {
  const params = isObject(m.params) ? m.params : undefined
  const meta = params !== undefined && isObject(params._meta) ? params._meta : undefined
  return meta?.progressToken
}

export const headersOf = (req: Http.IncomingMessage): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

export const header = (req: Http.IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}

export const accepts = (req: Http.IncomingMessage, type: string): boolean =>
  (header(req, "accept") ?? "").toLowerCase().includes(type)

export const acceptsGzip = (req: Http.IncomingMessage): boolean =>
  /\bgzip\b/i.test(header(req, "accept-encoding") ?? "")

export const dataLines = (text: string): string => text.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`).join("")
