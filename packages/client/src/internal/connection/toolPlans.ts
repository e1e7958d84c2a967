/**
 * What a call needs of its tool's definition, worked out once per definition (a refreshed list
 * brings new ones): its `Mcp-Name` header, its `x-mcp-header` parameters (`Mcp-Param-*`
 * headers), whether its input schema is refused, whether its results are checked against an
 * output schema.
 *
 * @internal
 */
import * as HeaderParams from "../../HeaderParams.js"
import { InvalidResponseError } from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type * as Validation from "./validation.js"

/** One definition's plan. @internal */
export interface Plan {
  readonly nameHeader: Record<string, string>
  readonly headerParams: ReadonlyArray<HeaderParams.HeaderParam>
  /** Whether its input schema is refused (`validation.inputRefusal` says why). */
  readonly refused: boolean
  readonly checksOutput: boolean
}

/** @internal */
export const make = (
  server: string,
  validation: ReturnType<typeof Validation.make>,
  /** Whether calls carry `Mcp-Param-*` headers now (2026-07-28 HTTP). */
  headersNeedDefinition: () => boolean
) => {
  const plans = new WeakMap<McpSchema.Tool, Plan>()
  const planOf = (tool: McpSchema.Tool): Plan => {
    let plan = plans.get(tool)
    if (plan === undefined) {
      const params = HeaderParams.validate(tool.inputSchema)
      plan = {
        nameHeader: { "mcp-name": HeaderParams.encodeValue(tool.name) },
        headerParams: params.valid ? params.params : [],
        refused: validation.inputRefusal(tool) !== undefined,
        checksOutput: validation.checksOutput(tool)
      }
      plans.set(tool, plan)
    }
    return plan
  }

  /**
   * The headers of a call: `Mcp-Name`, and the `Mcp-Param-*` ones from the tool's definition
   * (none off 2026-07-28 HTTP).
   */
  const callHeaders = (
    name: string,
    tool: McpSchema.Tool | undefined,
    args: Record<string, unknown> | undefined
  ): Record<string, string> | InvalidResponseError => {
    if (tool === undefined) return { "mcp-name": HeaderParams.encodeValue(name) }
    const plan = planOf(tool)
    const params = plan.headerParams
    if (params.length === 0 || !headersNeedDefinition()) return plan.nameHeader
    const rendered = HeaderParams.render(params, args ?? {})
    return "error" in rendered
      ? new InvalidResponseError({
        server,
        method: "tools/call",
        message: `arguments do not fit the tool's x-mcp-header parameters: ${rendered.error}`
      })
      : Object.assign({}, plan.nameHeader, rendered as Record<string, string>)
  }

  /** Why a call of `tool` is refused before it is sent, if it is. */
  const refusalOf = (tool: McpSchema.Tool | undefined) =>
    tool !== undefined && planOf(tool).refused ? validation.inputRefusal(tool) : undefined

  return { planOf, callHeaders, refusalOf }
}
