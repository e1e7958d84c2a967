/**
 * Drift pinning of one connection (`ServerConfig.pin`): each fetched tool list is checked
 * against the pin (a drift is reported once, until it changes), and in strict mode only the
 * tools matching their pin are shown and called. Calls are judged by the last complete list
 * checked while the cache still holds that list; once a `notifications/tools/list_changed`
 * dropped it, the next call lists the tools again first.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { ConnectError } from "../../McpError.js"
import { ToolNotFoundError, ToolPinMismatchError } from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type { ServerConnection } from "../../ServerConnection.js"
import type { Pinned, ToolDrift, ToolPin } from "../../ToolPin.js"
import * as ToolPinInternal from "../toolPin.js"
import type { Shared } from "./core.js"
import * as Lists from "./lists.js"

type Calls = Pick<ServerConnection, "callTool" | "unsafeCallTool" | "callToolAsTask">

/** @internal */
export interface Pins {
  /**
   * The tools of a fetched list that may be shown (all of them in warn mode), once their drift
   * was reported. `all`: the whole list as the server sent it, to find pinned tools gone
   * (`undefined` for one page, which cannot tell).
   */
  readonly check: (
    visible: ReadonlyArray<McpSchema.Tool>,
    all: ReadonlyArray<McpSchema.Tool> | undefined
  ) => Effect.Effect<ReadonlyArray<McpSchema.Tool>>
  /** The calls, refused in strict mode for a tool that does not match its pin (`listTools` checks). */
  readonly guard: (calls: Calls, listTools: Effect.Effect<unknown, ConnectError>) => Calls
}

/** What pinning uses of the connection. @internal */
export type Needs = Pick<Shared, "server" | "options" | "cache" | "clock" | "toolAllowed">

const pinnedOf = (pin: ToolPin, name: string): Pinned | undefined =>
  Object.prototype.hasOwnProperty.call(pin.tools, name) ? pin.tools[name] : undefined

/** @internal */
export const make = (core: Needs, pin: ToolPin): Pins => {
  const { cache, server } = core
  const strict = pin.mode === "strict"
  const allowed = core.toolAllowed
  // What was last reported of each tool (its drift's kind and digest): reported again only on change.
  const reported = new Map<string, string>()
  // The verdicts of the last complete list checked, and when the cache received that list.
  let verdicts: Map<string, ToolDrift | "ok"> | undefined
  let checkedAt: number | undefined

  const receivedAt = () => cache.info(Lists.listKeys.tools, core.clock.unsafeCurrentTimeMillis())?.receivedAt
  const current = () => verdicts !== undefined && checkedAt !== undefined && receivedAt() === checkedAt

  // A host listener's failure is its own: it is logged, and the list goes on.
  const tell = (drift: ToolDrift) =>
    Effect.zipRight(
      Effect.logWarning(
        `${server}: ${ToolPinInternal.describe(drift)}${drift.refused ? "; refused (strict pinning)" : ""}`
      ),
      Effect.catchAll(
        Effect.try(() => core.options.onToolDrift?.(drift)),
        (error) => Effect.logWarning(`${server}: the onToolDrift listener threw: ${String(error.cause)}`)
      )
    )

  const isNew = (drift: ToolDrift) => {
    const state = `${drift.kind}:${drift.actual ?? ""}`
    if (reported.get(drift.tool) === state) return false
    reported.set(drift.tool, state)
    return true
  }

  const check: Pins["check"] = (visible, all) =>
    Effect.flatMap(
      Effect.promise(() => Promise.all(visible.map((tool) => ToolPinInternal.fingerprint(tool)))),
      (prints) => {
        const drifts: Array<ToolDrift> = []
        const kept: Array<McpSchema.Tool> = []
        const next = new Map<string, ToolDrift | "ok">()
        visible.forEach((tool, i) => {
          const drift = ToolPinInternal.driftOf(server, tool.name, pinnedOf(pin, tool.name), prints[i], strict)
          next.set(tool.name, drift ?? "ok")
          if (drift !== undefined) drifts.push(drift)
          else reported.delete(tool.name)
          if (drift === undefined || !strict) kept.push(tool)
        })
        if (all !== undefined) {
          const listed = new Set(all.map((tool) => tool.name))
          for (const name of Object.keys(pin.tools)) {
            if (listed.has(name) || (allowed !== undefined && !allowed(name))) continue
            const drift = ToolPinInternal.driftOf(server, name, pin.tools[name], undefined, strict)!
            next.set(name, drift)
            drifts.push(drift)
          }
          verdicts = next
          checkedAt = receivedAt()
        }
        const fresh = drifts.filter(isNew)
        return fresh.length === 0 ? Effect.succeed(kept) : Effect.as(Effect.forEach(fresh, tell), kept)
      }
    )

  const refusal = (name: string): ToolNotFoundError | ToolPinMismatchError | undefined => {
    const verdict = verdicts?.get(name)
    if (verdict === "ok") return undefined
    return verdict === undefined
      ? new ToolNotFoundError({ name, server })
      : new ToolPinMismatchError({ server, tool: name, kind: verdict.kind, fields: verdict.fields })
  }

  const guard: Pins["guard"] = (calls, listTools) => {
    if (!strict) return calls
    const admitted = (name: string) =>
      Effect.flatMap(Effect.suspend(() => current() ? Effect.void : Effect.asVoid(listTools)), () => {
        const error = refusal(name)
        return error === undefined ? Effect.void : Effect.fail(error)
      })
    const { callTool, callToolAsTask, unsafeCallTool } = calls
    return {
      callTool: (name, args, options) => Effect.zipRight(admitted(name), callTool(name, args, options)),
      // `undefined` (not now) unless the verdict is known and good: `callTool` then decides.
      unsafeCallTool: unsafeCallTool === undefined ?
        undefined :
        (name, args, options, onDone) =>
          current() && verdicts!.get(name) === "ok" ? unsafeCallTool(name, args, options, onDone) : undefined,
      callToolAsTask: (name, args, options) => Effect.zipRight(admitted(name), callToolAsTask(name, args, options))
    }
  }

  return { check, guard }
}
