/**
 * The requests that need no part of their own: one function per MCP method, each built on the
 * request path of `core` (`send`, `gated`, `withInput`) and a result check from `decode.ts`.
 * A new request method goes here (or, when it lists or caches, in `lists.ts`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Deprecations from "../../Deprecations.js"
import * as HeaderParams from "../../HeaderParams.js"
import type { ConnectError } from "../../McpError.js"
import { CapabilityError } from "../../McpError.js"
import type { ServerConnection } from "../../ServerConnection.js"
import type { Core } from "./core.js"
import { isObject } from "./core.js"
import * as Decode from "./decode.js"

/** @internal */
export type Methods = Pick<
  ServerConnection,
  "ping" | "getPrompt" | "complete" | "setLogLevel" | "notifyRootsChanged" | "resumeInputRequired"
>

/** What the plain methods use of the core. @internal */
export type Needs = Pick<
  Core,
  "server" | "identity" | "logLevel" | "session" | "live" | "kind" | "send" | "gated" | "withInput"
>

/** @internal */
export const make = (core: Needs): Methods => {
  const { server } = core
  return {
    ping: (requestOptions) =>
      Effect.asVoid(Effect.flatMap(core.session, (s) =>
        s.negotiated.era === "legacy"
          ? core.send("ping", undefined, requestOptions)
          : core.send("server/discover", undefined, requestOptions))),
    getPrompt: (name, args, requestOptions) =>
      Effect.flatMap(
        core.withInput("prompts/get", args === undefined ? { name } : { name, arguments: args }, requestOptions, {
          "mcp-name": HeaderParams.encodeValue(name)
        }),
        (raw) => Decode.getPrompt(server, "prompts/get", raw)
      ),
    complete: (completeRequest, requestOptions) =>
      Effect.flatMap(
        core.gated("completion/complete", { ...completeRequest }, requestOptions),
        (raw) => Decode.complete(server, "completion/complete", raw)
      ),
    setLogLevel: (level, requestOptions) =>
      Effect.flatMap(core.session, (s): Effect.Effect<void, ConnectError | CapabilityError> => {
        if (s.negotiated.capabilities.logging === undefined) {
          return Effect.fail(new CapabilityError({ server, capability: "logging", method: "logging/setLevel" }))
        }
        // 2026-07-28 has no logging/setLevel: the level rides on every request's _meta.
        const set = s.negotiated.era === "modern"
          ? Effect.sync(() => {
            core.logLevel.current = level
          })
          : Effect.asVoid(core.send("logging/setLevel", { level }, requestOptions))
        return Effect.zipRight(Deprecations.warnOnce("logging"), set)
      }),
    notifyRootsChanged: Effect.suspend(() => {
      const s = core.live()
      if (
        s === undefined || !s.peer.isOpen() || s.negotiated.era !== "legacy" || core.kind() === "http" ||
        core.identity.legacyCapabilities?.roots === undefined
      ) return Effect.void
      return Effect.ignore(s.peer.notify("notifications/roots/list_changed"))
    }),
    resumeInputRequired: (error, inputResponses) =>
      core.withInput(error.method, isObject(error.params) ? error.params : {}, undefined, undefined, {
        inputResponses,
        requestState: error.requestState
      })
  }
}
