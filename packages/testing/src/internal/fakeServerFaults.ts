/**
 * @internal
 */
import * as Effect from "effect/Effect"
import type { Fault, RpcError, Wire } from "../FakeServer.js"

/** Takes the first scripted fault for `method` that has uses left, counting the use. */
export const makeTakeFault = (faults: ReadonlyArray<Fault> | undefined) => {
  const faultsUsed = new Map<Fault, number>()
  return (method: string): Fault | undefined => {
    for (const fault of faults ?? []) {
      if (fault.method !== method && fault.method !== "*") {
        continue
      }
      const used = faultsUsed.get(fault) ?? 0
      if (used >= (fault.times ?? Infinity)) {
        continue
      }
      faultsUsed.set(fault, used + 1)
      return fault
    }
    return undefined
  }
}

/** Applies `fault` to the answer of a request; `undefined` when nothing is to be answered. */
export const withFault = (
  fault: Fault,
  wire: Wire,
  method: string,
  program: Effect.Effect<unknown, RpcError>
): Effect.Effect<unknown, RpcError> | undefined => {
  switch (fault.action) {
    case "error":
      return Effect.fail({ code: fault.code, message: fault.message, data: fault.data })
    case "silence":
      return undefined
    case "crash":
      wire.close(`scripted crash on ${method}`)
      return undefined
    case "malformed":
      wire.sendRaw("{this is not json")
      return program
    case "unsolicited":
      wire.send({ jsonrpc: "2.0", id: "never-asked", result: {} })
      return program
    case "delay":
      return Effect.zipRight(Effect.sleep(fault.millis), program)
    case "result":
      return Effect.succeed(fault.result)
    case "repeat-cursor":
      return Effect.map(program, (r) => ({ ...(r as object), nextCursor: "same" }))
    case "acknowledge":
      return program
  }
}
