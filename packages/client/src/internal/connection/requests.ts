/**
 * The request path, composed: which steps of `../request/` a connection's requests go through,
 * and in which order (outermost first). Per connection: the `input_required` rounds (the
 * `withInput` sender), tracing (when the connection traces), the re-send after an expired HTTP
 * session (on HTTP), the capability gate (the `gated` sender). Per session, once its era is
 * known: the 2026-07-28 decoration and the re-issue of a broken response stream (where the
 * transport has response streams), then the session's peer.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { CapabilityError, InputRequiredError } from "../../McpError.js"
import * as Protocol from "../../Protocol.js"
import type { ServerConfig } from "../../ServerConfig.js"
import { capabilityGate } from "../request/capabilityGate.js"
import { resendOnExpiredSession } from "../request/expiredSession.js"
import { inputRounds } from "../request/inputRounds.js"
import { modernEra } from "../request/modernEra.js"
import { reissueBrokenStream } from "../request/reissueBrokenStream.js"
import type { Send } from "../request/send.js"
import { sender, toPeer } from "../request/send.js"
import { traced } from "../request/tracing.js"
import type { RequestPath, Session, Sessions, Shared } from "./core.js"

/** What the request path uses of the core. @internal */
export type Needs = Pick<
  Shared & Sessions,
  | "server"
  | "options"
  | "defaultTimeoutMs"
  | "tasksDeclared"
  | "identity"
  | "fixedHostMeta"
  | "hostMeta"
  | "logLevel"
  | "clock"
  | "session"
  | "discovered"
  | "live"
  | "tracing"
>

const isHttpKind = (kind: string) => kind === "streamable_http" || kind === "http"

/** @internal */
export const make = (core: Needs, config: Pick<ServerConfig<unknown>, "kind" | "fallbacks">): RequestPath => {
  // The steps of a session, composed when it is first used (a re-discovery or a reopen makes a new one).
  let composedFor: Session | undefined
  let composed: Send | undefined
  const ofSession = (s: Session): Send => {
    if (composedFor === s && composed !== undefined) return composed
    const peer = toPeer(s.peer)
    composedFor = s
    composed = s.negotiated.era === "legacy"
      ? peer
      : modernEra(core, s.negotiated.protocolVersion)(s.peer.unsafeRequest === undefined ? reissueBrokenStream(peer) : peer)
    return composed
  }

  // The current session's steps; a request that finds none open opens one.
  const current: Send = sender(
    (request) =>
      Effect.suspend(() => {
        const live = core.live()
        return live !== undefined && live.peer.isOpen()
          ? ofSession(live)(request)
          : Effect.flatMap(core.session, (s) => ofSession(s)(request))
      }),
    (request, onOutcome) => {
      const live = core.live()
      if (live === undefined || !live.peer.isOpen()) return undefined
      return ofSession(live).now?.(request, onOutcome)
    }
  )

  const kinds = [config.kind, ...(config.fallbacks ?? []).map((f) => f.kind)]
  const sessioned = kinds.some(isHttpKind) ? resendOnExpiredSession(current) : current
  const tracing = core.tracing
  const send = tracing === undefined ? sessioned : traced(tracing, () => core.live()?.attributes)(sessioned)
  const withInput: Send<InputRequiredError> = inputRounds(core)(send)
  const gated: Send<CapabilityError> = capabilityGate(core.server, core.discovered)(send)

  const complete = (method: string, result: unknown) =>
    Protocol.resultTypeOf(result) === "complete"
      ? Effect.succeed(result)
      : Effect.fail(Protocol.invalidResult(core.server, method, result))

  return { send, withInput, gated, complete }
}
