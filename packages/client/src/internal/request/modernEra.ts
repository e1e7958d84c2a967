/**
 * The 2026-07-28 decoration of a request: the per-request `_meta` (version, client info and
 * capabilities, log level, the host's own), the era's headers, and its typed errors (`-32020`,
 * `-32021`, `-32022` from a `ServerError`). Composed only on a 2026-07-28 session.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Predicate from "effect/Predicate"
import { ServerError } from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import * as Protocol from "../../Protocol.js"
import type { OutgoingRequest, Params, Step } from "./send.js"
import { done, proceed, sender } from "./send.js"

/** What the decoration reads of the connection. @internal */
export interface Settings {
  readonly identity: Protocol.ClientIdentity
  /** The 2026-07-28 log level: it rides on every request's `_meta`. */
  readonly logLevel: { readonly current: McpSchema.LoggingLevel | undefined }
  /** The host's `_meta` when it is a fixed value; else `undefined` (then `hostMeta`). */
  readonly fixedHostMeta: Record<string, unknown> | undefined
  readonly hostMeta: Effect.Effect<Record<string, unknown>>
}

// `catchIf`, unlike `mapError`, costs nothing on success; `modernError` changes only a ServerError.
const isServerError = (error: unknown): error is ServerError => error instanceof ServerError

/** @internal */
export const modernEra = (settings: Settings, version: string): Step => {
  const { fixedHostMeta, hostMeta, identity, logLevel } = settings
  // The `_meta` without the caller's own: one object while the level and declared capabilities
  // (`setRoots` replaces them) stay, so a call allocates none.
  let shared: {
    readonly level: McpSchema.LoggingLevel | undefined
    readonly capabilities: unknown
    readonly meta: Params
  } | undefined
  const sharedMeta = (host: Record<string, unknown>) => {
    const level = logLevel.current
    const capabilities = identity.capabilities
    if (shared === undefined || shared.level !== level || shared.capabilities !== capabilities) {
      shared = {
        level,
        capabilities,
        meta: Object.assign({}, host, Protocol.requestMeta(identity, version, level))
      }
    }
    return shared.meta
  }
  const metaOf = (host: Record<string, unknown>, params: Params) => {
    const own = params?._meta
    return host === fixedHostMeta && !Predicate.isRecord(own)
      ? sharedMeta(host)
      : Object.assign(
        {},
        host,
        Predicate.isRecord(own) ? own : undefined,
        Protocol.requestMeta(identity, version, logLevel.current)
      )
  }
  const withMeta = (request: OutgoingRequest, host: Record<string, unknown>) =>
    Object.assign({}, request.params, { _meta: metaOf(host, request.params) })

  return (next) => {
    const decorated = (request: OutgoingRequest, host: Record<string, unknown>) =>
      Effect.catchIf(
        next(Object.assign({}, request, {
          params: withMeta(request, host),
          headers: Object.assign(Protocol.modernHeaders(request.method, version), request.headers),
          modern: true
        })),
        isServerError,
        (error) => Effect.fail(Protocol.modernError(error))
      )
    const now = next.now
    return sender(
      (request) =>
        fixedHostMeta !== undefined
          ? decorated(request, fixedHostMeta)
          : Effect.flatMap(hostMeta, (host) => decorated(request, host)),
      // Pure while the host's `_meta` is a fixed value. No headers: a transport that writes
      // without a fiber takes none.
      now === undefined || fixedHostMeta === undefined ?
        undefined :
        (request, onOutcome) =>
          now(Object.assign({}, request, { params: withMeta(request, fixedHostMeta) }), (outcome) =>
            onOutcome(
              outcome._tag === "Done"
                ? Exit.isFailure(outcome.exit) ? done(Exit.mapError(outcome.exit, Protocol.modernError)) : outcome
                : proceed(Effect.mapError(outcome.effect, Protocol.modernError))
            ))
    )
  }
}
