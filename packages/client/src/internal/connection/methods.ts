/**
 * The requests that need no part of their own: one function per MCP method, each built on the
 * request path of `core` (its senders `send`, `gated`, `withInput`) and a result check from `decode.ts`.
 * A new request method goes here (or, when it lists or caches, in `lists.ts`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as Deprecations from "../../Deprecations.js"
import * as HeaderParams from "../../HeaderParams.js"
import type { ConnectError, InputRequiredError } from "../../McpError.js"
import { CapabilityError, InvalidResponseError } from "../../McpError.js"
import * as McpSchema from "../../McpSchema.js"
import * as Protocol from "../../Protocol.js"
import type { RawRequestError, RawRequestOptions, ServerConnection } from "../../ServerConnection.js"
import { capabilityGate } from "../request/capabilityGate.js"
import type { Send } from "../request/send.js"
import type { Core, Params } from "./core.js"
import * as Decode from "./decode.js"

/** @internal */
export type Methods = Pick<
  ServerConnection,
  | "ping"
  | "getPrompt"
  | "complete"
  | "setLogLevel"
  | "notifyRootsChanged"
  | "resumeInputRequired"
  | "request"
  | "notify"
>

/** What the plain methods use of the core. @internal */
export type Needs = Pick<
  Core,
  | "server"
  | "identity"
  | "logLevel"
  | "session"
  | "discovered"
  | "currentSession"
  | "kind"
  | "send"
  | "gated"
  | "withInput"
>

/** The `Mcp-Name` header of a method that names its subject (2026-07-28 HTTP). */
const nameHeader = (method: string, params: Params): Record<string, string> | undefined => {
  const subject = method === "tools/call" || method === "prompts/get"
    ? params?.name
    : method === "resources/read"
    ? params?.uri
    : undefined
  return typeof subject === "string" ? { "mcp-name": HeaderParams.encodeValue(subject) } : undefined
}

/**
 * The sender of raw requests: the capability gate (the capabilities it reads are the current
 * ones: a lapsed discovery is re-fetched), then on 2026-07-28 the `input_required` rounds; a
 * legacy result is whatever the server sent.
 */
const rawSender = (core: Needs): Send<InputRequiredError | CapabilityError> =>
  capabilityGate(core.server, core.discovered)<InputRequiredError>((request) =>
    core.currentSession()?.negotiated.era === "legacy"
      ? core.send(request)
      : core.withInput(Object.assign({}, request, { params: request.params ?? {} }))
  )

/** A raw request: gated when the method is known, then `input_required` rounds on 2026-07-28. */
const request = (core: Needs, send: Send<InputRequiredError | CapabilityError>) =>
<A, I>(
  method: string,
  params: Params,
  requestOptions: RawRequestOptions<A, I> | undefined
): Effect.Effect<A, RawRequestError> => {
  const { server } = core
  const schema = requestOptions?.schema
  const decode = schema === undefined ? undefined : Schema.decodeUnknownEither(schema, McpSchema.parseOptions)
  const sent: Effect.Effect<unknown, RawRequestError> = send({
    method,
    params,
    options: requestOptions,
    headers: nameHeader(method, params)
  })
  if (decode === undefined) return sent as Effect.Effect<A, RawRequestError>
  return Effect.flatMap(sent, (raw) => {
    const decoded = decode(raw)
    return Either.isRight(decoded)
      ? Effect.succeed(decoded.right)
      : Effect.fail(new InvalidResponseError({ server, method, message: decoded.left.message.slice(0, 500) }))
  })
}

/** @internal */
export const make = (core: Needs): Methods => {
  const { server } = core
  const raw = request(core, rawSender(core))
  return {
    request: (method, params, requestOptions) => raw(method, params, requestOptions),
    notify: (method, params) =>
      Effect.flatMap(core.session, (s) =>
        s.negotiated.era === "legacy"
          ? s.peer.notify(method, params)
          : s.peer.notify(method, params, {
            modern: true,
            headers: Protocol.modernHeaders(method, s.negotiated.protocolVersion)
          })),
    ping: (requestOptions) =>
      Effect.asVoid(Effect.flatMap(core.session, (s) =>
        s.negotiated.era === "legacy"
          ? core.send({ method: "ping", params: undefined, options: requestOptions })
          : core.send({ method: "server/discover", params: undefined, options: requestOptions }))),
    getPrompt: (name, args, requestOptions) =>
      Effect.flatMap(
        core.withInput({
          method: "prompts/get",
          params: args === undefined ? { name } : { name, arguments: args },
          options: requestOptions,
          headers: { "mcp-name": HeaderParams.encodeValue(name) }
        }),
        (raw) => Decode.getPrompt(server, "prompts/get", raw)
      ),
    complete: (completeRequest, requestOptions) =>
      Effect.flatMap(
        core.gated({ method: "completion/complete", params: { ...completeRequest }, options: requestOptions }),
        (raw) => Decode.completeResult(server, "completion/complete", raw)
      ),
    setLogLevel: (level, requestOptions) =>
      Effect.flatMap(core.discovered, (s): Effect.Effect<void, ConnectError | CapabilityError> => {
        if (s.negotiated.capabilities.logging === undefined) {
          return Effect.fail(new CapabilityError({ server, capability: "logging", method: "logging/setLevel" }))
        }
        // 2026-07-28 has no logging/setLevel: the level rides on every request's _meta, and only
        // there is logging deprecated.
        if (s.negotiated.era === "legacy") {
          return Effect.asVoid(core.send({ method: "logging/setLevel", params: { level }, options: requestOptions }))
        }
        return Effect.zipRight(
          Deprecations.warnOnce("logging"),
          Effect.sync(() => {
            core.logLevel.current = level
          })
        )
      }),
    notifyRootsChanged: Effect.suspend(() => {
      const s = core.currentSession()
      if (
        s === undefined || !s.peer.isOpen() || s.negotiated.era !== "legacy" || core.kind() === "http" ||
        core.identity.legacyCapabilities?.roots === undefined
      ) return Effect.void
      return Effect.ignore(s.peer.notify("notifications/roots/list_changed"))
    }),
    // From the error or its saved form (another process, perhaps): without answers the pending
    // round is put to the handlers first, as if it had just arrived.
    resumeInputRequired: (pending, inputResponses) => {
      const params = Predicate.isRecord(pending.params) ? pending.params : {}
      return core.withInput({
        method: pending.method,
        params,
        headers: nameHeader(pending.method, params),
        resume: {
          inputResponses,
          inputRequests: Predicate.isRecord(pending.inputRequests) ? pending.inputRequests : undefined,
          requestState: pending.requestState
        }
      })
    }
  }
}
