/**
 * The request path, composed: which steps of `../request/` a connection's requests go through,
 * and in which order (outermost first). Per connection: the `input_required` rounds (the
 * `withInput` sender), the DEBUG line (when the connection logs DEBUG), tracing (when the
 * connection traces), the capability gate (the `gated` sender). Per session, once its era and transport are known: the re-send after an expired
 * HTTP session (a handshake era over HTTP), the 2026-07-28 decoration and the re-issue of a
 * broken response stream (where the transport has response streams), then the session's peer.
 * Only the steps that apply are composed: what a request crosses is what it needs.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { CapabilityError, InputRequiredError } from "../../McpError.js"
import * as Protocol from "../../Protocol.js"
import type * as RpcPeer from "../../RpcPeer.js"
import { capabilityGate } from "../request/capabilityGate.js"
import { debugLog } from "../request/debugLog.js"
import { resendOnExpiredSession } from "../request/expiredSession.js"
import { inputRounds } from "../request/inputRounds.js"
import { modernEra } from "../request/modernEra.js"
import { reissueBrokenStream } from "../request/reissueBrokenStream.js"
import type { OutgoingRequest, Send } from "../request/send.js"
import { done, sender } from "../request/send.js"
import { traced } from "../request/tracing.js"
import type { RequestPath, Session, SessionAccess, Shared } from "./core.js"

/** What the request path uses of the core. @internal */
export type Needs = Pick<
  Shared & SessionAccess,
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
  | "currentSession"
  | "isHttp"
  | "tracing"
  | "debugRequests"
>

const peerOptions = (request: OutgoingRequest): RpcPeer.RequestOptions | undefined => {
  const options = request.options
  const hints: RpcPeer.RequestOptions["hints"] = request.modern === true
    ? { modern: true, headers: request.headers, onAuthorization: request.onAuthorization }
    : request.onAuthorization !== undefined
    ? { onAuthorization: request.onAuthorization }
    : undefined
  if (options === undefined && hints === undefined && request.onId === undefined) return undefined
  return {
    timeoutMs: options?.timeout === undefined ? undefined : Duration.toMillis(Duration.decode(options.timeout)),
    onProgress: options?.onProgress,
    resetTimeoutOnProgress: options?.resetTimeoutOnProgress,
    maxTotalTimeoutMs: options?.maxTotalTimeout === undefined
      ? undefined
      : Duration.toMillis(Duration.decode(options.maxTotalTimeout)),
    onId: request.onId,
    hints
  }
}

const noop = () => {}

/**
 * The last sender: the request to `peer`, with its timeouts, progress and hints; without a
 * fiber where the peer writes synchronously (a transport that takes no hints).
 */
const toPeer = (peer: RpcPeer.RpcPeer): Send => {
  const unsafeRequest = peer.unsafeRequest
  return sender(
    (request) => peer.request(request.method, request.params, peerOptions(request)),
    unsafeRequest === undefined ? undefined : (request, onOutcome) => {
      const sent = unsafeRequest(
        request.method,
        request.params,
        peerOptions(request),
        (exit) => onOutcome(done(exit))
      )
      if (typeof sent === "function") return sent
      onOutcome(done(Exit.fail(sent)))
      return noop
    }
  )
}

/** @internal */
export const make = (core: Needs): RequestPath => {
  // The era's steps of a session.
  const eraSteps = (s: Session): Send => {
    const peer = toPeer(s.peer)
    return s.negotiated.era === "legacy"
      ? peer
      : modernEra(core, s.negotiated.protocolVersion)(
        s.peer.unsafeRequest === undefined ? reissueBrokenStream(peer) : peer
      )
  }
  // Once, on the session opened in its place.
  const resend: Send = (request) => Effect.flatMap(core.session, (s) => eraSteps(s)(request))

  // The steps of a session, composed when it is first used (a re-discovery or a reopen makes a new one).
  let composedFor: Session | undefined
  let composed: Send | undefined
  const ofSession = (s: Session): Send => {
    if (composedFor === s && composed !== undefined) return composed
    composedFor = s
    composed = s.negotiated.era === "legacy" && core.isHttp()
      ? resendOnExpiredSession(resend)(eraSteps(s))
      : eraSteps(s)
    return composed
  }

  // The current session's steps; a request that finds none open opens one.
  const current: Send = sender(
    (request) =>
      Effect.suspend(() => {
        const live = core.currentSession()
        return live !== undefined && live.peer.isOpen()
          ? ofSession(live)(request)
          : Effect.flatMap(core.session, (s) => ofSession(s)(request))
      }),
    (request, onOutcome) => {
      const live = core.currentSession()
      if (live === undefined || !live.peer.isOpen()) return undefined
      return ofSession(live).now?.(request, onOutcome)
    }
  )

  const tracing = core.tracing
  const spanned = tracing === undefined ? current : traced(tracing, () => core.currentSession()?.attributes)(current)
  const send = core.debugRequests ? debugLog(core.server, core.clock)(spanned) : spanned
  const withInput: Send<InputRequiredError> = inputRounds(core)(send)
  const gated: Send<CapabilityError> = capabilityGate(core.server, core.discovered)(send)

  const requireComplete = (method: string, result: unknown) =>
    Protocol.resultTypeOf(result) === "complete"
      ? Effect.succeed(result)
      : Effect.fail(Protocol.invalidResult(core.server, method, result))

  return { send, withInput, gated, requireComplete }
}
