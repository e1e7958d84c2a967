/**
 * @internal
 */
import type { Definition, Fault, Wire } from "../FakeServer.js"
import { isObject, SUBSCRIPTION_ID } from "./fakeServerMethods.js"

/** 2026-07-28 subscriptions: acknowledged at once, kept open until cancelled or ended. */
export const makeListens = (definition: Definition, takeFault: (method: string) => Fault | undefined) => {
  const listens = new Map<
    string,
    { readonly wire: Wire; readonly id: string | number; readonly filter: Record<string, unknown> }
  >()
  const listenWith = (wire: Wire, id: string | number, method: string, params: Record<string, unknown>) => {
    const fault = takeFault(method)
    switch (fault?.action) {
      case "silence":
        return
      case "crash":
        return wire.close(`scripted crash on ${method}`)
      case "error":
        return wire.send({
          jsonrpc: "2.0",
          id,
          error: { code: fault.code, message: fault.message, data: fault.data }
        })
      case "acknowledge":
        return startListen(wire, id, params, fault.notifications)
      case "result":
        startListen(wire, id, params)
        listens.delete(`${String(id)}`)
        return wire.send({ jsonrpc: "2.0", id, result: fault.result })
      default:
        return startListen(wire, id, params)
    }
  }
  const startListen = (
    wire: Wire,
    id: string | number,
    params: Record<string, unknown>,
    acknowledged?: Record<string, unknown>
  ) => {
    const asked = isObject(params.notifications) ? params.notifications : {}
    const granted: Record<string, unknown> = acknowledged === undefined ? {} : { ...acknowledged }
    if (acknowledged === undefined) {
      for (const flag of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"]) {
        if (asked[flag] === true) granted[flag] = true
      }
      if (Array.isArray(asked.resourceSubscriptions) && definition.subscriptions === true) {
        granted.resourceSubscriptions = asked.resourceSubscriptions
      }
    }
    listens.set(`${String(id)}`, { wire, id, filter: granted })
    wire.send({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: { [SUBSCRIPTION_ID]: id }, notifications: granted }
    })
  }
  const publish = (method: string, flag: string, params?: Record<string, unknown>) => {
    for (const listen of listens.values()) {
      const wanted = flag === "resourceSubscriptions"
        ? Array.isArray(listen.filter.resourceSubscriptions) &&
          listen.filter.resourceSubscriptions.includes(params?.uri)
        : listen.filter[flag] === true
      if (wanted) {
        listen.wire.send({
          jsonrpc: "2.0",
          method,
          params: { ...params, _meta: { [SUBSCRIPTION_ID]: listen.id } }
        })
      }
    }
  }

  const endListens = () => {
    for (const [key, listen] of listens) {
      listen.wire.send({
        jsonrpc: "2.0",
        id: listen.id,
        result: { resultType: "complete", _meta: { [SUBSCRIPTION_ID]: listen.id } }
      })
      listens.delete(key)
    }
  }

  const cancelListens = () => {
    for (const [key, listen] of listens) {
      listen.wire.send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: listen.id, reason: "the server ended the subscription" }
      })
      listens.delete(key)
    }
  }

  /** The client cancelled a listen request. */
  const forget = (requestId: unknown) => listens.delete(`${String(requestId)}`)

  return { listenWith, publish, endListens, cancelListens, forget }
}
