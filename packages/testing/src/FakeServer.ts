/**
 * A programmable MCP server for tests and demos: tools with handlers, prompts, resources,
 * templates, completions, pagination, list changes, progress, delays and scripted faults.
 * One definition serves in-memory connections ({@link FakeServer.config}) and, through the
 * `mcp-effect-fake-server` executable, a real stdio process.
 *
 * @since 0.1.0
 */
import * as InMemory from "@mcp-effect/client/InMemory"
import { ConnectionError } from "@mcp-effect/client/McpError"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as Tasks from "./internal/tasks.js"

/**
 * What a tool handler can do besides returning its result.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolContext {
  /** Sends `notifications/progress` for this call (only when the client asked for progress). */
  readonly progress: (progress: number, total?: number, message?: string) => Effect.Effect<void>
  /** Sends any notification to the client. */
  readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
  /** Closes the connection as a crashing process would. */
  readonly crash: Effect.Effect<void>
  /** 2026-07-28 multi-round-trip: the `inputResponses` and `requestState` of this retry. */
  readonly inputResponses: Record<string, unknown> | undefined
  readonly requestState: string | undefined
}

/**
 * A handler's answer: a full result, or text that becomes one text block.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolAnswer =
  | string
  | { readonly content: ReadonlyArray<unknown>; readonly [key: string]: unknown }
  | {
    readonly resultType: "input_required"
    readonly inputRequests?: Record<string, unknown> | undefined
    readonly requestState?: string | undefined
  }

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolDefinition {
  readonly tool: McpSchema.Tool
  readonly handler: (args: Record<string, unknown>, context: ToolContext) => Effect.Effect<ToolAnswer>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PromptDefinition {
  readonly prompt: McpSchema.Prompt
  readonly render: (args: Record<string, string>) => McpSchema.GetPromptResult
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ResourceDefinition {
  readonly resource: McpSchema.Resource
  readonly contents: ReadonlyArray<McpSchema.ResourceContents>
}

/**
 * A scripted misbehaviour, applied to requests of `method` (`*` for any), at most `times`
 * times (default: always). On a 2026-07-28 `subscriptions/listen`, `silence` never
 * acknowledges it, `error` and `crash` answer instead of acknowledging, `result` acknowledges
 * and then closes it with that result, and `acknowledge` grants exactly what it names.
 *
 * @since 0.1.0
 * @category models
 */
export type Fault =
  & { readonly method: string; readonly times?: number | undefined }
  & (
    | { readonly action: "error"; readonly code: number; readonly message: string; readonly data?: unknown }
    /** Never answers. */
    | { readonly action: "silence" }
    /** Answers with a line that is not JSON first, then answers normally. */
    | { readonly action: "malformed" }
    /** Answers with a response for an id nobody asked for first, then answers normally. */
    | { readonly action: "unsolicited" }
    /** Closes the connection instead of answering (a stdio server exits). */
    | { readonly action: "crash" }
    /** Answers after a delay. */
    | { readonly action: "delay"; readonly millis: number }
    /** Answers with this result instead. */
    | { readonly action: "result"; readonly result: unknown }
    /** Pagination: answers every page with the same `nextCursor`. */
    | { readonly action: "repeat-cursor" }
    /** `subscriptions/listen` only: acknowledges with exactly these `notifications`, then keeps it open. */
    | { readonly action: "acknowledge"; readonly notifications: Record<string, unknown> }
  )

/**
 * A JSON-RPC error a handler answers with.
 *
 * @since 0.1.0
 * @category models
 */
export interface RpcError {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/**
 * Serves one method: a vendor extension's the fake does not know, or a scripted answer to one
 * it does (it replaces the built-in one). `context.progress` reports progress when the client
 * asked for it.
 *
 * @since 0.1.0
 * @category models
 */
export type MethodHandler = (
  params: Record<string, unknown>,
  context: Pick<ToolContext, "progress" | "notify">
) => Effect.Effect<unknown, RpcError>

/**
 * @since 0.1.0
 * @category models
 */
export interface Definition {
  readonly serverInfo?: McpSchema.Implementation | undefined
  readonly instructions?: string | undefined
  /** Replaces the capabilities derived from what the definition serves. */
  readonly capabilities?: Record<string, unknown> | undefined
  readonly tools?: ReadonlyArray<ToolDefinition> | undefined
  readonly prompts?: ReadonlyArray<PromptDefinition> | undefined
  readonly resources?: ReadonlyArray<ResourceDefinition> | undefined
  readonly resourceTemplates?: ReadonlyArray<McpSchema.ResourceTemplate> | undefined
  readonly completions?:
    | ((ref: McpSchema.CompletionReference, argument: { name: string; value: string }) => ReadonlyArray<string>)
    | undefined
  /** Declares `logging` and serves `logging/setLevel`. */
  readonly logging?: boolean | undefined
  /** Declares `resources.subscribe` and serves `resources/subscribe` / `unsubscribe`. */
  readonly subscriptions?: boolean | undefined
  /** Items per page of every list (default: everything on one page). */
  readonly pageSize?: number | undefined
  readonly faults?: ReadonlyArray<Fault> | undefined
  /** Methods served by the host's own handlers, by name (checked before the built-in ones). */
  readonly methods?: Record<string, MethodHandler> | undefined
  /**
   * Which eras it speaks: `legacy` (default: `server/discover` is unknown), `modern`
   * (2026-07-28 only: `initialize` is refused with -32022) or `dual`.
   */
  readonly era?: "legacy" | "modern" | "dual" | undefined
  /** `ttlMs` of every cacheable 2026-07-28 result (default 0). */
  readonly ttlMs?: number | undefined
  /** `cacheScope` of every cacheable 2026-07-28 result (default public). */
  readonly cacheScope?: "public" | "private" | undefined
  /**
   * Serves tasks: a tool whose `execution.taskSupport` is `optional` or `required` runs as a
   * task when the call asks for one (2025-11-25 `task` parameter; 2026-07-28 when the request
   * declares the `io.modelcontextprotocol/tasks` extension). An `input_required` answer of the
   * tool puts a 2026-07-28 task in `input_required` until `tasks/update` brings the answers.
   */
  readonly tasks?: Tasks.TaskOptions | undefined
}

/**
 * Where one connection's output goes.
 *
 * @since 0.1.0
 * @category models
 */
export interface Wire {
  readonly send: (message: object) => void
  /** Sends text that is not a JSON-RPC message (a malformed line on stdio). */
  readonly sendRaw: (text: string) => void
  readonly close: (reason: string) => void
}

/**
 * A message the server received, as it arrived.
 *
 * @since 0.1.0
 * @category models
 */
export interface Received {
  readonly method: string | undefined
  readonly id: string | number | undefined
  readonly params: Record<string, unknown> | undefined
  readonly message: Record<string, unknown>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface FakeServer {
  /** A server configuration whose every connection is served by this fake, in memory. */
  readonly config: (options?: {
    readonly name?: string | undefined
    readonly readTimeout?: Duration.DurationInput | undefined
  }) => ServerConfig
  /** Serves one connection over `wire`; hand what the client sends to `receive`. */
  readonly serve: (wire: Wire) => Effect.Effect<{ readonly receive: (message: unknown) => void }, never, Scope.Scope>
  /** Every message received, across connections, oldest first. */
  readonly received: Effect.Effect<ReadonlyArray<Received>>
  /** Received requests of one method. */
  readonly requests: (method: string) => Effect.Effect<ReadonlyArray<Received>>
  /** How many connections were opened so far. */
  readonly connections: Effect.Effect<number>
  /** Replaces the tool list and announces `notifications/tools/list_changed`. */
  readonly setTools: (tools: ReadonlyArray<ToolDefinition>) => Effect.Effect<void>
  /** Sends a notification on every open connection. */
  readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
  /** Closes every open connection as a crash would. */
  readonly crash: Effect.Effect<void>
  /** Sends a notification on every 2026-07-28 subscription whose filter asked for it. */
  readonly publish: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
  /** Ends every subscription gracefully (a complete result to each listen request). */
  readonly endListens: Effect.Effect<void>
  /** Tears every subscription down from the server's side: `notifications/cancelled` naming each listen request. */
  readonly cancelListens: Effect.Effect<void>
}

const SUPPORTED = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const MODERN = "2026-07-28"
const SERVER_INFO = "io.modelcontextprotocol/serverInfo"
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
const CACHEABLE = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read"
])

const isModernRequest = (params: Record<string, unknown>) =>
  isObject(params._meta) && params._meta["io.modelcontextprotocol/protocolVersion"] === MODERN

const toResult = (answer: ToolAnswer) =>
  typeof answer === "string" ? { content: [{ type: "text", text: answer }] } : answer

const paginate = <A>(items: ReadonlyArray<A>, pageSize: number | undefined, cursor: unknown) => {
  const parsed = typeof cursor === "string" ? Number(cursor) : 0
  const start = Number.isFinite(parsed) ? parsed : 0
  if (pageSize === undefined) return { items, nextCursor: undefined }
  const end = start + pageSize
  return { items: items.slice(start, end), nextCursor: end < items.length ? String(end) : undefined }
}

/**
 * Builds a fake server from a definition.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (definition: Definition): Effect.Effect<FakeServer> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(runtime)
    const received = yield* Ref.make<Array<Received>>([])
    let tools = definition.tools ?? []
    let connectionCount = 0
    const open = new Set<Wire>()
    const faultsUsed = new Map<Fault, number>()

    const capabilities = definition.capabilities ?? {
      tools: { listChanged: true },
      ...(definition.prompts !== undefined ? { prompts: { listChanged: true } } : {}),
      ...(definition.resources !== undefined || definition.resourceTemplates !== undefined
        ? { resources: { listChanged: true, ...(definition.subscriptions === true ? { subscribe: true } : {}) } }
        : {}),
      ...(definition.logging === true ? { logging: {} } : {}),
      ...(definition.completions !== undefined ? { completions: {} } : {}),
      ...(definition.tasks !== undefined
        ? {
          tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
          extensions: { [Tasks.EXTENSION]: {} }
        }
        : {})
    }
    const taskStore = Tasks.make(definition.tasks ?? {}, runFork, (creator, params) =>
      creator.send({ jsonrpc: "2.0", method: "notifications/tasks/status", params }))

    const contextOf = (wire: Wire, params: Record<string, unknown>): Pick<ToolContext, "progress" | "notify"> => {
      const token = isObject(params._meta) ? params._meta.progressToken : undefined
      return {
        progress: (progress, total, message) =>
          token === undefined ? Effect.void : Effect.sync(() =>
            wire.send({
              jsonrpc: "2.0",
              method: "notifications/progress",
              params: { progressToken: token, progress, total, message }
            })
          ),
        notify: (notifyMethod, notifyParams) =>
          Effect.sync(() =>
            wire.send({ jsonrpc: "2.0", method: notifyMethod, params: notifyParams ?? {} })
          )
      }
    }

    const takeFault = (method: string): Fault | undefined => {
      for (const fault of definition.faults ?? []) {
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

    const answer = (
      wire: Wire,
      method: string,
      params: Record<string, unknown>
    ): Effect.Effect<unknown, { code: number; message: string; data?: unknown }> => {
      const custom = definition.methods !== undefined && Object.hasOwn(definition.methods, method)
        ? definition.methods[method]
        : undefined
      if (custom !== undefined) return custom(params, contextOf(wire, params))
      switch (method) {
        case "server/discover": {
          if ((definition.era ?? "legacy") === "legacy") {
            return Effect.fail({ code: -32601, message: "Method not found" })
          }
          return Effect.succeed({
            supportedVersions: definition.era === "dual" ? [MODERN, ...SUPPORTED] : [MODERN],
            capabilities,
            ...(definition.instructions !== undefined ? { instructions: definition.instructions } : {}),
            _meta: { [SERVER_INFO]: definition.serverInfo ?? { name: "fake-server", version: "1.0.0" } }
          })
        }
        case "initialize": {
          if (definition.era === "modern") {
            return Effect.fail({
              code: -32022,
              message: "Unsupported protocol version",
              data: { supported: [MODERN], requested: String(params.protocolVersion) }
            })
          }
          const requested = typeof params.protocolVersion === "string" ? params.protocolVersion : SUPPORTED[0]!
          return Effect.succeed({
            protocolVersion: SUPPORTED.includes(requested) ? requested : SUPPORTED[0],
            capabilities,
            serverInfo: definition.serverInfo ?? { name: "fake-server", version: "1.0.0" },
            ...(definition.instructions !== undefined ? { instructions: definition.instructions } : {})
          })
        }
        case "ping":
          return Effect.succeed({})
        case "tools/list": {
          const page = paginate(tools, definition.pageSize, params.cursor)
          return Effect.succeed({
            tools: page.items.map((t) => t.tool),
            nextCursor: page.nextCursor
          })
        }
        case "tools/call": {
          const found = tools.find((t) => t.tool.name === params.name)
          if (found === undefined) return Effect.fail({ code: -32602, message: `Unknown tool: ${String(params.name)}` })
          const meta = isObject(params._meta) ? params._meta : undefined
          const context: ToolContext = {
            ...contextOf(wire, params),
            crash: Effect.sync(() => wire.close("tool crashed the server")),
            inputResponses: isObject(params.inputResponses) ? params.inputResponses : undefined,
            requestState: typeof params.requestState === "string" ? params.requestState : undefined
          }
          const args = isObject(params.arguments) ? params.arguments : {}
          const support = found.tool.execution?.taskSupport
          const modern = isModernRequest(params)
          const declared = isObject(meta?.["io.modelcontextprotocol/clientCapabilities"]) &&
            isObject(meta["io.modelcontextprotocol/clientCapabilities"].extensions) &&
            meta["io.modelcontextprotocol/clientCapabilities"].extensions[Tasks.EXTENSION] !== undefined
          if (
            definition.tasks !== undefined && (support === "optional" || support === "required") &&
            (modern ? declared : isObject(params.task))
          ) {
            return taskStore.create(modern, wire.send, (inputResponses) =>
              Effect.map(found.handler(args, { ...context, inputResponses, requestState: undefined }), toResult))
          }
          return Effect.map(found.handler(args, context), toResult)
        }
        case "prompts/list": {
          const page = paginate(definition.prompts ?? [], definition.pageSize, params.cursor)
          return Effect.succeed({
            prompts: page.items.map((p) =>
              p.prompt
            ),
            nextCursor: page.nextCursor
          })
        }
        case "prompts/get": {
          const found = definition.prompts?.find((p) =>
            p.prompt.name === params.name
          )
          if (found === undefined) {
            return Effect.fail({ code: -32602, message: `Unknown prompt: ${String(params.name)}` })
          }
          return Effect.succeed(
            found.render((isObject(params.arguments) ? params.arguments : {}) as Record<string, string>)
          )
        }
        case "resources/list": {
          const page = paginate(definition.resources ?? [], definition.pageSize, params.cursor)
          return Effect.succeed({ resources: page.items.map((r) => r.resource), nextCursor: page.nextCursor })
        }
        case "resources/templates/list": {
          const page = paginate(definition.resourceTemplates ?? [], definition.pageSize, params.cursor)
          return Effect.succeed({ resourceTemplates: page.items, nextCursor: page.nextCursor })
        }
        case "resources/read": {
          const found = definition.resources?.find((r) => r.resource.uri === params.uri)
          if (found === undefined) {
            return Effect.fail({ code: -32002, message: "Resource not found", data: { uri: params.uri } })
          }
          return Effect.succeed({ contents: found.contents })
        }
        case "logging/setLevel":
          return definition.logging === true
            ? Effect.succeed({})
            : Effect.fail({ code: -32601, message: "Method not found" })
        case "resources/subscribe":
        case "resources/unsubscribe":
          return definition.subscriptions === true
            ? Effect.succeed({})
            : Effect.fail({ code: -32601, message: "Method not found" })
        case "completion/complete": {
          if (definition.completions === undefined) return Effect.fail({ code: -32601, message: "Method not found" })
          const values = definition.completions(
            params.ref as McpSchema.CompletionReference,
            params.argument as { name: string; value: string }
          )
          return Effect.succeed({
            completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 }
          })
        }
        default:
          return definition.tasks !== undefined
            ? taskStore.serve(method, params, isModernRequest(params)) ??
              Effect.fail({ code: -32601, message: `Method not found: ${method}` })
            : Effect.fail({ code: -32601, message: `Method not found: ${method}` })
      }
    }

    // A 2026-07-28 request gets a resultType and, where cacheable, ttlMs/cacheScope.
    const modernize = (method: string, params: Record<string, unknown>, result: unknown) => {
      if (!isObject(result) || (!isModernRequest(params) && method !== "server/discover")) return result
      return {
        resultType: "complete",
        ...(CACHEABLE.has(method)
          ? { ttlMs: definition.ttlMs ?? 0, cacheScope: definition.cacheScope ?? "public" }
          : {}),
        ...result
      }
    }

    const respond = (wire: Wire, id: string | number, method: string, params: Record<string, unknown>) => {
      const fault = takeFault(method)
      let program: Effect.Effect<unknown, { code: number; message: string; data?: unknown }> = answer(
        wire,
        method,
        params
      )
      if (fault !== undefined) {
        switch (fault.action) {
          case "error":
            program = Effect.fail({ code: fault.code, message: fault.message, data: fault.data })
            break
          case "silence":
            return
          case "crash":
            return wire.close(`scripted crash on ${method}`)
          case "malformed":
            wire.sendRaw("{this is not json")
            break
          case "unsolicited":
            wire.send({ jsonrpc: "2.0", id: "never-asked", result: {} })
            break
          case "delay":
            program = Effect.zipRight(Effect.sleep(fault.millis), program)
            break
          case "result":
            program = Effect.succeed(fault.result)
            break
          case "repeat-cursor":
            program = Effect.map(program, (r) => ({ ...(r as object), nextCursor: "same" }))
            break
        }
      }
      runFork(Effect.match(program, {
        onSuccess: (result) => wire.send({ jsonrpc: "2.0", id, result: modernize(method, params, result) }),
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
            runFork(Ref.update(received, (all) => [...all, { method, id, params, message }]))
            if (
              method === "subscriptions/listen" && id !== undefined && definition.era !== undefined &&
              definition.era !== "legacy"
            ) {
              return listenWith(wire, id, method, params)
            }
            if (method === "notifications/cancelled") {
              listens.delete(`${String(params.requestId)}`)
            }
            if (method !== undefined && id !== undefined) respond(wire, id, method, params)
          }
          return { receive }
        }),
        () => Effect.sync(() => open.delete(wire))
      )

    // 2026-07-28 subscriptions: acknowledged at once, kept open until cancelled or ended.
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
      received: Ref.get(received),
      requests: (method) => Effect.map(Ref.get(received), (all) => all.filter((r) => r.method === method)),
      connections: Effect.sync(() => connectionCount),
      setTools: (next) =>
        Effect.suspend(() => {
          tools = next
          publish("notifications/tools/list_changed", "toolsListChanged")
          return broadcast({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })
        }),
      publish: (method, params) =>
        Effect.sync(() =>
          publish(
            method,
            method === "notifications/resources/updated"
              ? "resourceSubscriptions"
              : method === "notifications/prompts/list_changed"
              ? "promptsListChanged"
              : method === "notifications/resources/list_changed"
              ? "resourcesListChanged"
              : "toolsListChanged",
            params
          )
        ),
      endListens: Effect.sync(() => {
        for (const [key, listen] of listens) {
          listen.wire.send({
            jsonrpc: "2.0",
            id: listen.id,
            result: { resultType: "complete", _meta: { [SUBSCRIPTION_ID]: listen.id } }
          })
          listens.delete(key)
        }
      }),
      cancelListens: Effect.sync(() => {
        for (const [key, listen] of listens) {
          listen.wire.send({
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: { requestId: listen.id, reason: "the server ended the subscription" }
          })
          listens.delete(key)
        }
      }),
      notify: (method, params) => broadcast({ jsonrpc: "2.0", method, params: params ?? {} }),
      crash: Effect.sync(() => [...open].forEach((wire) => wire.close("server crashed")))
    }
    return server
  })

/**
 * A tool definition from a name, an input schema and a handler.
 *
 * @since 0.1.0
 * @category constructors
 */
export const tool = (
  name: string,
  handler: ToolDefinition["handler"],
  extra?: Partial<McpSchema.Tool>
): ToolDefinition => ({
  tool: { name, inputSchema: { type: "object" }, ...extra },
  handler
})
