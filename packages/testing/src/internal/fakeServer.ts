/**
 * @internal
 */
import * as InMemory from "@mcp-effect/client/InMemory"
import { ConnectionError } from "@mcp-effect/client/McpError"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import type { Definition, FakeServer, Received, ToolDefinition, Wire } from "../FakeServer.js"
import { makeTakeFault, withFault } from "./fakeServerFaults.js"
import { makeListens } from "./fakeServerListens.js"
import { capabilitiesOf, isObject, makeAnswer, modernize } from "./fakeServerMethods.js"
import * as Tasks from "./tasks.js"

/** Which subscription filter flag a published notification needs. */
const flagOf = (method: string): string =>
  method === "notifications/resources/updated"
    ? "resourceSubscriptions"
    : method === "notifications/prompts/list_changed"
    ? "promptsListChanged"
    : method === "notifications/resources/list_changed"
    ? "resourcesListChanged"
    : "toolsListChanged"

/** @internal */
export const make = (definition: Definition): Effect.Effect<FakeServer> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(runtime)
    // Appended in place: copying the whole log per message made a long run quadratic.
    const received: Array<Received> = []
    let tools: ReadonlyArray<ToolDefinition> = definition.tools ?? []
    let connectionCount = 0
    const open = new Set<Wire>()
    const takeFault = makeTakeFault(definition.faults)
    const taskStore = Tasks.make(definition.tasks ?? {}, runFork, (creator, params) =>
      creator.send({ jsonrpc: "2.0", method: "notifications/tasks/status", params }))
    const answer = makeAnswer(definition, capabilitiesOf(definition), () =>
      tools, taskStore)
    const listens = makeListens(definition, takeFault)

    const respond = (wire: Wire, id: string | number, method: string, params: Record<string, unknown>) => {
      const fault = takeFault(method)
      const answered = answer(wire, method, params)
      const program = fault === undefined ? answered : withFault(fault, wire, method, answered)
      if (program === undefined) {
        return
      }
      runFork(Effect.match(program, {
        onSuccess: (result) =>
          wire.send({ jsonrpc: "2.0", id, result: modernize(definition, method, params, result) }),
        onFailure: (error) => wire.send({ jsonrpc: "2.0", id, error })
      }))
    }

    const serve: FakeServer["serve"] = (wire) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          connectionCount++
          open.add(wire)
          const receive = (message: unknown) => {
            if (!isObject(message)) return
            const params = isObject(message.params) ? message.params : {}
            const method = typeof message.method === "string" ? message.method : undefined
            const id = typeof message.id === "string" || typeof message.id === "number" ? message.id : undefined
            received.push({ method, id, params, message })
            if (
              method === "subscriptions/listen" && id !== undefined && definition.era !== undefined &&
              definition.era !== "legacy"
            ) {
              return listens.listenWith(wire, id, method, params)
            }
            if (method === "notifications/cancelled") {
              listens.forget(params.requestId)
            }
            if (method !== undefined && id !== undefined) respond(wire, id, method, params)
          }
          return { receive }
        }),
        () => Effect.sync(() => open.delete(wire))
      )

    const broadcast = (message: object) => Effect.sync(() => open.forEach((wire) => wire.send(message)))

    const server: FakeServer = {
      serve,
      config: (options) =>
        InMemory.config({
          name: options?.name ?? "fake",
          readTimeout: options?.readTimeout,
          server: (client) =>
            serve({
              send: (message) => client.onMessage(message),
              sendRaw: (text) => client.onMessage(text),
              close: (reason) =>
                client.onClose(new ConnectionError({ server: options?.name ?? "fake", message: reason }))
            })
        }),
      received: Effect.sync(() => received.slice()),
      requests: (method) => Effect.sync(() => received.filter((r) => r.method === method)),
      connections: Effect.sync(() => connectionCount),
      setTools: (next) =>
        Effect.suspend(() => {
          tools = next
          listens.publish("notifications/tools/list_changed", "toolsListChanged")
          return broadcast({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
        }),
      publish: (method, params) => Effect.sync(() => listens.publish(method, flagOf(method), params)),
      endListens: Effect.sync(listens.endListens),
      cancelListens: Effect.sync(listens.cancelListens),
      notify: (method, params) => broadcast({ jsonrpc: "2.0", method, params: params ?? {} }),
      crash: Effect.sync(() => [...open].forEach((wire) => wire.close("server crashed")))
    }
    return server
  })
