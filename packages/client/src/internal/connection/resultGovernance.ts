/**
 * The result limits of a server's calls (`../resultLimits.ts`): each result is held to the
 * call's limits over the server's and the client's, a tool's declared size raising a configured
 * character limit. A call with no limit anywhere is passed through untouched.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as McpSchema from "../../McpSchema.js"
import type { CallToolOptions, ServerConnection } from "../../ServerConnection.js"
import * as ResultLimits from "../resultLimits.js"

/** What the limits need of the tools part. @internal */
export interface Deps {
  readonly configured: ResultLimits.Limits | undefined
  readonly store: ResultLimits.Store
  /** The most a tool's declaration raises a limit to. */
  readonly ceiling: number
  /** The tool's definition in the last list fetched; `undefined` while none was. */
  readonly knownTool: (name: string) => { readonly tool: McpSchema.Tool | undefined } | undefined
  /** The tool's definition, the list fetched when needed (none when that fails). */
  readonly fetchTool: (name: string) => Effect.Effect<McpSchema.Tool | undefined>
}

type Calls = Pick<ServerConnection, "callTool" | "unsafeCallTool">

const callLimits = (options: CallToolOptions | undefined): ResultLimits.Limits | undefined =>
  options === undefined ||
    (options.maxResultChars === undefined && options.maxResultBytes === undefined && options.overflow === undefined)
    ? undefined
    : options

/**
 * The calls with their results held to the limits.
 *
 * @internal
 */
export const governed = (deps: Deps, calls: Calls): Calls => {
  const { callTool, unsafeCallTool } = calls
  const limited = (options: CallToolOptions | undefined) =>
    ResultLimits.isLimited(deps.configured) || ResultLimits.isLimited(callLimits(options))

  const within = (
    tool: McpSchema.Tool | undefined,
    result: McpSchema.CallToolResult,
    call: ResultLimits.Limits | undefined
  ) =>
    ResultLimits.apply(
      result,
      ResultLimits.effective(call, deps.configured, ResultLimits.declaredMax(tool), deps.ceiling),
      deps.store
    )

  /**
   * The result within the limits, at once when that needs no definition (it fits, or no
   * declaration can matter, or the definition is known); else `undefined`.
   */
  const now = (name: string, result: McpSchema.CallToolResult, call: ResultLimits.Limits | undefined) => {
    const base = ResultLimits.effective(call, deps.configured, undefined, deps.ceiling)
    if (base === undefined || !ResultLimits.isOver(result, base)) return result
    // A declaration raises only a configured character limit, and never past the ceiling.
    if (call?.maxResultChars !== undefined || deps.configured?.maxResultChars === undefined || deps.ceiling <= 0) {
      return ResultLimits.apply(result, base, deps.store)
    }
    const known = deps.knownTool(name)
    return known === undefined ? undefined : within(known.tool, result, call)
  }

  const held = (name: string, result: McpSchema.CallToolResult, call: ResultLimits.Limits | undefined) =>
    Effect.suspend(() => {
      const done = now(name, result, call)
      return done !== undefined
        ? Effect.succeed(done)
        : Effect.map(deps.fetchTool(name), (tool) => within(tool, result, call))
    })

  return {
    callTool: (name, args, options) =>
      limited(options)
        ? Effect.flatMap(callTool(name, args, options), (result) => held(name, result, callLimits(options)))
        : callTool(name, args, options),
    unsafeCallTool: unsafeCallTool === undefined ?
      undefined :
      (name, args, options, onDone) =>
        !limited(options) ?
          unsafeCallTool(name, args, options, onDone) :
          unsafeCallTool(name, args, options, (outcome) => {
            const call = callLimits(options)
            if (outcome._tag === "Continue") {
              return onDone({ _tag: "Continue", effect: Effect.flatMap(outcome.effect, (r) => held(name, r, call)) })
            }
            const exit = outcome.exit
            if (exit._tag === "Failure") return onDone(outcome)
            const done = now(name, exit.value, call)
            onDone(
              done === undefined
                ? { _tag: "Continue", effect: held(name, exit.value, call) }
                : { _tag: "Done", exit: done === exit.value ? exit : Exit.succeed(done) }
            )
          })
  }
}
