/**
 * Reading a Streamable HTTP POST reply's body: whether it answers its request, what it held when
 * it does not, and the JSON-RPC error of a refusal.
 *
 * @internal
 */
import type * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import { escapeControl } from "../escape.js"

/** @internal */
export type Json = Record<string, unknown>
/** @internal */
export type Id = string | number

/** @internal */
export const isObject = (u: unknown): u is Json => Predicate.isRecord(u)

/** @internal */
export const isId = (u: unknown): u is Id => typeof u === "string" || typeof u === "number"

/** Whether a body is only whitespace (as `trim` would find, without copying it). @internal */
export const isBlank = (text: string): boolean => !/\S/.test(text)

/** Whether `message` is the response to request `id`. @internal */
export const answers = (message: unknown, id: Id | undefined): boolean =>
  isObject(message) && message.id === id && ("result" in message || "error" in message)

/** What a reply that does not answer request `id` held, for its error (server text escaped). @internal */
export const describeUnanswered = (id: Id, messages: ReadonlyArray<unknown>): string => {
  const responses: Array<string> = []
  let notifications = 0
  let requests = 0
  let other = 0
  for (const message of messages) {
    if (!isObject(message)) other++
    else if (typeof message.method === "string" && message.id === undefined) notifications++
    else if (typeof message.method === "string") requests++
    else if ("result" in message || "error" in message) responses.push(JSON.stringify(message.id) ?? "none")
    else other++
  }
  const parts: Array<string> = []
  const shown = responses.slice(0, 3).map((text) => escapeControl(text, 40))
  if (responses.length > 0) {
    parts.push(`${responses.length === 1 ? "a response" : `${responses.length} responses`} for id ${shown.join(", ")}`)
  }
  if (notifications > 0) parts.push(`${notifications} notification${notifications === 1 ? "" : "s"}`)
  if (requests > 0) parts.push(`${requests} server request${requests === 1 ? "" : "s"}`)
  if (other > 0) parts.push(`${other} message${other === 1 ? "" : "s"} that ${other === 1 ? "is" : "are"} not JSON-RPC`)
  return `the JSON reply holds no response to request ${JSON.stringify(id)}: ${
    parts.length === 0 ? "an empty batch" : parts.join(", ")
  }`
}

/**
 * The messages of a JSON reply's body (none for a blank one), or `undefined` for a body that is
 * not JSON.
 *
 * @internal
 */
export const jsonMessages = (text: string): ReadonlyArray<unknown> | undefined => {
  if (isBlank(text)) return []
  try {
    const body: unknown = JSON.parse(text)
    return Array.isArray(body) ? body : [body]
  } catch {
    return undefined
  }
}

/** @internal */
export interface ErrorBody {
  /** The JSON-RPC error the body holds, if any. */
  readonly error: Json | undefined
  /** Whether the body carries an `id` (the error is then for a request). */
  readonly hasId: boolean
}

/** The JSON-RPC error of a refusal's body (read or not), if it holds one. @internal */
export const errorBody = (text: Either.Either<string, unknown>): ErrorBody => {
  let body: unknown
  try {
    body = text._tag === "Right" ? JSON.parse(text.right) : undefined
  } catch {
    body = undefined
  }
  return {
    error: isObject(body) && isObject(body.error) ? body.error : undefined,
    hasId: isObject(body) && body.id !== undefined
  }
}

/**
 * Whether a JSON-RPC error message says the session is unknown (SDK 1.x servers answer a stale
 * session id with 400 "Bad Request: No valid session ID provided" rather than 404).
 *
 * @internal
 */
export const mentionsSession = (error: Json | undefined): boolean =>
  typeof error?.message === "string" && /session/i.test(error.message.slice(0, 500))
