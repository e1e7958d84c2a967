/**
 * The request path every feature sends through: the era's decoration of a request (`_meta`,
 * headers, typed errors, one re-issue of a broken response stream), the legacy capability gate,
 * one re-send on a new session after an expired HTTP session, and the `input_required` rounds.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Handlers from "../../Handlers.js"
import type { CapabilityError, ConnectError } from "../../McpError.js"
import { InputRequiredError, ServerError } from "../../McpError.js"
import * as Protocol from "../../Protocol.js"
import type * as RpcPeer from "../../RpcPeer.js"
import type { RequestOptions } from "../../ServerConnection.js"
import * as Limits from "../limits.js"
import type { Params, RequestPath, SendNow, Session, Sessions, Shared, WithInput } from "./core.js"
import { isObject, timeoutOf } from "./core.js"
import * as Tracing from "./tracing.js"

const noop = () => {}

const peerOptions = (requestOptions: RequestOptions | undefined): RpcPeer.RequestOptions | undefined =>
  requestOptions === undefined ? undefined : {
    timeoutMs: timeoutOf(requestOptions),
    onProgress: requestOptions.onProgress,
    resetTimeoutOnProgress: requestOptions.resetTimeoutOnProgress,
    maxTotalTimeoutMs: requestOptions.maxTotalTimeout === undefined
      ? undefined
      : Duration.toMillis(Duration.decode(requestOptions.maxTotalTimeout))
  }

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

/** @internal */
export const make = (core: Needs): RequestPath => {
  const { fixedHostMeta, hostMeta, identity, logLevel, server, session } = core

  // A 2026-07-28 request's `_meta` without the caller's own: one object while the version, log
  // level and declared capabilities (`setRoots` replaces them) stay, so a call allocates none.
  let sharedMeta: {
    readonly version: string
    readonly level: string | undefined
    readonly capabilities: unknown
    readonly meta: Record<string, unknown>
  } | undefined
  const modernMeta = (host: Record<string, unknown>, version: string) => {
    const level = logLevel.current
    const capabilities = identity.capabilities
    if (
      sharedMeta === undefined || sharedMeta.version !== version || sharedMeta.level !== level ||
      sharedMeta.capabilities !== capabilities
    ) {
      sharedMeta = {
        version,
        level,
        capabilities,
        meta: Object.assign({}, host, Protocol.requestMeta(identity, version, level))
      }
    }
    return sharedMeta.meta
  }

  const metaOf = (host: Record<string, unknown>, params: Params, version: string) => {
    const own = params?._meta
    return host === fixedHostMeta && !isObject(own)
      ? modernMeta(host, version)
      : Object.assign(
        {},
        host,
        isObject(own) ? own : undefined,
        Protocol.requestMeta(identity, version, logLevel.current)
      )
  }

  const untraced: SendNow = (method, params, requestOptions, extraHeaders, onAuthorization, onId) => {
    const options: RpcPeer.RequestOptions | undefined = onAuthorization !== undefined
      ? Object.assign({}, peerOptions(requestOptions), { onId, hints: { onAuthorization } })
      : onId !== undefined
      ? Object.assign({}, peerOptions(requestOptions), { onId })
      : peerOptions(requestOptions)
    const attempt = () => {
      const live = core.live()
      return live !== undefined && live.peer.isOpen() ? onSession(live) : Effect.flatMap(session, onSession)
    }
    const onSession = (s: Session): Effect.Effect<unknown, ConnectError> => {
      if (s.negotiated.era === "legacy") return s.peer.request(method, params, options)
      const withHost = (host: Record<string, unknown>) => {
        const meta = metaOf(host, params, s.negotiated.protocolVersion)
        const headers = Object.assign(Protocol.modernHeaders(method, s.negotiated.protocolVersion), extraHeaders)
        const once = s.peer.request(
          method,
          Object.assign({}, params, { _meta: meta }),
          Object.assign({}, options, { hints: { modern: true, headers, onAuthorization } })
        )
        // A listen's broken stream is the subscription's to re-open (backoff, re-acknowledgement).
        const reissued = method === "subscriptions/listen"
          ? once
          : Effect.catchTag(once, "ResponseStreamClosedError", () => once)
        // `modernError` changes only a ServerError (and `catchIf`, unlike `mapError`, costs
        // nothing on success).
        return Effect.catchIf(
          reissued,
          (error): error is ServerError => error instanceof ServerError,
          (error) => Effect.fail(Protocol.modernError(error))
        )
      }
      return fixedHostMeta !== undefined ? withHost(fixedHostMeta) : Effect.flatMap(hostMeta, withHost)
    }
    // An expired HTTP session: re-sent once on a new session, unless it is a tool call,
    // which may have had effects — that fails so the caller decides.
    return method === "tools/call"
      ? attempt()
      : Effect.catchTag(attempt(), "SessionExpiredError", () => Effect.suspend(attempt))
  }

  // Decided once for the connection: without a tracer, requests take the untraced path as is.
  const tracing = core.tracing
  const sendNow: SendNow = tracing === undefined ? untraced : (
    method,
    params,
    requestOptions,
    extraHeaders,
    onAuthorization,
    onId
  ) =>
    Tracing.request(tracing, method, params, () => core.live()?.attributes, (traced, onTracedId) =>
      untraced(
        method,
        traced,
        requestOptions,
        extraHeaders,
        onAuthorization,
        onId === undefined ? onTracedId : (id) => {
          onTracedId(id)
          onId(id)
        }
      ))

  const send: SendNow = (...args) => Effect.suspend(() => sendNow(...args))

  // Only where no step needs an effect: an open session on a transport that writes at once
  // (such a transport has no response stream to re-issue and no HTTP session to expire), no
  // tracer, a fixed host `_meta`.
  const unsafeSend: RequestPath["unsafeSend"] = (method, params, requestOptions, onExit) => {
    const live = core.live()
    const unsafeRequest = live?.peer.unsafeRequest
    if (unsafeRequest === undefined || tracing !== undefined || !live!.peer.isOpen()) return undefined
    const modern = live!.negotiated.era === "modern"
    if (modern && fixedHostMeta === undefined) return undefined
    const sent = modern
      ? unsafeRequest(
        method,
        Object.assign({}, params, { _meta: metaOf(fixedHostMeta!, params, live!.negotiated.protocolVersion) }),
        peerOptions(requestOptions),
        (exit) => onExit(Exit.isFailure(exit) ? Exit.mapError(exit, Protocol.modernError) : exit)
      )
      : unsafeRequest(method, params, peerOptions(requestOptions), onExit)
    if (typeof sent === "function") return sent
    onExit(Exit.fail(sent))
    return noop
  }

  const gated = (
    method: string,
    params: Params,
    requestOptions?: RequestOptions
  ): Effect.Effect<unknown, ConnectError | CapabilityError> =>
    Effect.flatMap(core.discovered, (s): Effect.Effect<unknown, ConnectError | CapabilityError> => {
      const refused = Protocol.legacy.gate(server, s.negotiated, method)
      return refused !== undefined ? Effect.fail(refused) : send(method, params, requestOptions)
    })

  const complete = (method: string, result: unknown) =>
    Protocol.resultTypeOf(result) === "complete"
      ? Effect.succeed(result)
      : Effect.fail(Protocol.invalidResult(server, method, result))

  const withInputNow = makeWithInput(core, sendNow)

  return {
    send,
    sendNow,
    unsafeSend,
    gated,
    complete,
    withInput: (...args) => Effect.suspend(() => withInputNow(...args)),
    withInputNow
  }
}

/**
 * Multi-round-trip requests (DIGEST §5): each round answers every input request with the
 * host's handlers and retries with a new id, `inputResponses` and the echoed state.
 */
const makeWithInput = (core: Needs, sendNow: SendNow): WithInput => {
  const { clock, defaultTimeoutMs, options, server, tasksDeclared } = core
  const handlers = options.handlers
  return (method, params, requestOptions, headers, start, onComplete, onAuthorization, answered) => {
    const startedAt = clock.unsafeCurrentTimeMillis()
    const round = (
      n: number,
      inputResponses: Record<string, unknown> | undefined,
      requestState: string | undefined,
      // The first round's result when it was sent without an effect (`unsafeSend`).
      answer?: { readonly result: unknown }
    ): Effect.Effect<unknown, ConnectError | InputRequiredError> =>
      Effect.flatMap(
        answer !== undefined ? Effect.succeed(answer.result) : sendNow(
          method,
          inputResponses === undefined && requestState === undefined ? params : {
            ...params,
            ...(inputResponses === undefined ? {} : { inputResponses }),
            ...(requestState === undefined ? {} : { requestState })
          },
          requestOptions,
          headers,
          onAuthorization
        ),
        (result): Effect.Effect<unknown, ConnectError | InputRequiredError> => {
          const type = Protocol.resultTypeOf(result)
          if (type === "complete") {
            onComplete?.(inputResponses !== undefined || requestState !== undefined)
            return Effect.succeed(result)
          }
          // The tasks extension: only tools/call may answer with a task, and only when declared.
          if (
            type === "invalid" && method === "tools/call" && tasksDeclared && isObject(result) &&
            result.resultType === "task"
          ) return Effect.succeed(result)
          if (type === "invalid") return Effect.fail(Protocol.invalidResult(server, method, result))
          const r = result as Record<string, unknown>
          const state = typeof r.requestState === "string" ? r.requestState : undefined
          const requests = r.inputRequests
          const fail = (reason: string, resumable: boolean) =>
            Effect.fail(
              new InputRequiredError({
                server,
                method,
                params,
                inputRequests: requests,
                requestState: state,
                resumable,
                reason
              })
            )
          if (n > Limits.MAX_INPUT_ROUNDS) return fail(`more than ${Limits.MAX_INPUT_ROUNDS} rounds`, true)
          if (requests === undefined) {
            if (state === undefined) {
              return fail("an input_required result with neither inputRequests nor requestState", false)
            }
            // Load shedding: only state came back. The host hook (or a growing pause) decides,
            // and the whole wait stays inside the request's timeout.
            const delayMs = Math.min(50 * 2 ** (n - 1), 2_000)
            return Effect.suspend(() => {
              const elapsedMs = clock.unsafeCurrentTimeMillis() - startedAt
              const decide = options.onInputRequiredWait === undefined
                ? Effect.succeed<"retry" | "cancel" | number>(delayMs)
                : options.onInputRequiredWait({ method, round: n, delayMs, requestState: state, elapsedMs })
              return Effect.flatMap(decide, (decision) => {
                if (decision === "cancel") return fail("cancelled while the server was busy", true)
                const pause = decision === "retry" ? 0 : Math.max(0, decision)
                if (elapsedMs + pause > (timeoutOf(requestOptions) ?? defaultTimeoutMs)) {
                  return fail("the server stayed busy past the request's timeout", true)
                }
                return Effect.zipRight(
                  Effect.sleep(Duration.millis(pause)),
                  Effect.suspend(() => round(n + 1, undefined, state))
                )
              })
            })
          }
          if (!isObject(requests)) {
            return fail("malformed inputRequests", false)
          }
          const entries = Object.entries(requests)
          for (const [, request] of entries) {
            if (
              !isObject(request) || typeof request.method !== "string" ||
              (request.params !== undefined && !isObject(request.params))
            ) {
              return fail("malformed inputRequests", false)
            }
          }
          return Effect.flatMap(
            Effect.forEach(entries, ([key, request]) => {
              const r = request as { method: string; params?: Record<string, unknown> }
              const served = Handlers.serve(handlers, r.method, r.params ?? {}, "modern")
              if (served === undefined) return fail(`no handler for ${r.method}`, true)
              return Effect.map(
                Effect.catchAll(served, (error) =>
                  error instanceof Handlers.InvalidInputRequest
                    ? fail(`refused ${r.method}: ${error.message}`, false)
                    : Effect.zipRight(
                      Effect.logWarning(`${server}: the ${r.method} handler failed: ${String(error)}`),
                      fail(`the ${r.method} handler failed`, true)
                    )),
                (answer) => [key, answer] as const
              )
            }),
            (answers) => round(n + 1, Object.fromEntries(answers), state)
          )
        }
      )
    return start === undefined
      ? round(1, undefined, undefined, answered)
      : round(1, start.inputResponses, start.requestState, answered)
  }
}
