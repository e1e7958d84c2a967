/**
 * The facade's `callTool`: sent without a fiber where the client can (`unsafeCallTool`: a
 * promise settled from the response itself), else through the runner like every other call.
 *
 * @internal
 */
import type * as Exit from "effect/Exit"
import type * as McpClient from "../../McpClient.js"
import type * as McpSchema from "../../McpSchema.js"
import type { CallToolOutcome } from "../../ServerConnection.js"
import type { Runner } from "./run.js"
import { settle } from "./run.js"
import type { Signal } from "./types.js"

/** `callTool` for Promise callers over `service`, falling back to `run`. */
export const callToolOn = (service: McpClient.Service, run: Runner<McpClient.McpClient>) =>
(
  name: string,
  args?: Record<string, unknown>,
  options?: McpClient.CallOptions & Signal
): Promise<McpSchema.CallToolResult> => {
  const unsafe = service.unsafeCallTool
  const viaRunner = () => run(service.callTool(name, args, options), options)
  const signal = options?.signal
  if (unsafe === undefined) return viaRunner()
  if (signal?.aborted) return Promise.reject(signal.reason)
  return new Promise<McpSchema.CallToolResult>((resolve, reject) => {
    let settled = false
    // Aborting abandons the request (`notifications/cancelled`) and rejects with the reason, as `fetch` does.
    const onAbort = () => {
      settled = true
      abandon?.()
      reject(signal!.reason)
    }
    // Usually done; otherwise the rest of the call (input rounds, tasks, validation) to run.
    const onDone = (outcome: CallToolOutcome) => {
      settled = true
      signal?.removeEventListener("abort", onAbort)
      if (outcome._tag === "Done") settle(resolve, reject)(outcome.exit as Exit.Exit<McpSchema.CallToolResult, unknown>)
      else run(outcome.effect, options).then(resolve, reject)
    }
    const abandon = unsafe(name, args, options, onDone)
    if (abandon === undefined) return viaRunner().then(resolve, reject)
    if (signal !== undefined && !settled) signal.addEventListener("abort", onAbort, { once: true })
  })
}
