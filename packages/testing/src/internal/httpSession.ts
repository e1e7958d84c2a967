/**
 * @internal
 */
import type * as Scope from "effect/Scope"
import type * as Http from "node:http"
import type { Message } from "./httpMessage.js"
import type { Sink } from "./sseSink.js"

export interface EventStream {
  /** `get` for the standalone GET stream, `r<n>` for the stream of the n-th SSE POST. */
  readonly key: string
  seq: number
  /** The highest seq written to a connection (undelivered events wait for the next GET). */
  delivered: number
  readonly history: Array<{ readonly seq: number; readonly text: string }>
  sink: Sink | undefined
  /** A POST stream whose response was emitted. */
  done: boolean
}

export interface Pending {
  readonly method: string
  readonly token: unknown
  readonly stream: EventStream | undefined
  readonly json: ((message: Message) => void) | undefined
  readonly cut: boolean
  readonly dead: boolean
}

export interface Session {
  readonly id: string | undefined
  readonly scope: Scope.CloseableScope
  connection: { readonly receive: (message: unknown) => void }
  readonly standalone: EventStream
  readonly streams: Map<string, EventStream>
  readonly pending: Map<string, Pending>
  readonly jsonWaiting: Set<Http.ServerResponse>
  nextStream: number
  current: Pending | undefined
  ended: boolean
}

export const newStream = (key: string): EventStream => ({
  key,
  seq: 0,
  delivered: 0,
  history: [],
  sink: undefined,
  done: false
})

export const parseEventId = (id: string): { readonly key: string; readonly seq: number } | undefined => {
  const dash = id.lastIndexOf("-")
  if (dash <= 0) return undefined
  const seq = Number(id.slice(dash + 1))
  return Number.isInteger(seq) && seq >= 0 ? { key: id.slice(0, dash), seq } : undefined
}
