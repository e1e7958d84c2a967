/**
 * @internal
 */
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import type { Definition, RpcError, ToolAnswer, ToolContext, ToolDefinition, Wire } from "../FakeServer.js"
import * as Tasks from "./tasks.js"

const SUPPORTED = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

export const isObject = Predicate.isRecord

const MODERN = "2026-07-28"
const SERVER_INFO = "io.modelcontextprotocol/serverInfo"
export const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
const CACHEABLE = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read"
])

export const isModernRequest = (params: Record<string, unknown>) =>
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

/** The capabilities a definition declares: what it serves, unless it names its own. */
export const capabilitiesOf = (definition: Definition): Record<string, unknown> =>
  definition.capabilities ?? {
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

/** Progress and notifications of one request, sent on `wire`. */
export const contextOf = (wire: Wire, params: Record<string, unknown>): Pick<ToolContext, "progress" | "notify"> => {
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
      Effect.sync(() => wire.send({ jsonrpc: "2.0", method: notifyMethod, params: notifyParams ?? {} }))
  }
}

/** Answers requests from a definition: the host's `methods` first, then the built-in ones. */
export const makeAnswer = (
  definition: Definition,
  capabilities: Record<string, unknown>,
  tools: () => ReadonlyArray<ToolDefinition>,
  taskStore: ReturnType<typeof Tasks.make>
) =>
(
  wire: Wire,
  method: string,
  params: Record<string, unknown>
): Effect.Effect<unknown, RpcError> => {
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
      const page = paginate(tools(), definition.pageSize, params.cursor)
      return Effect.succeed({
        tools: page.items.map((t) => t.tool),
        nextCursor: page.nextCursor
      })
    }
    case "tools/call": {
      const found = tools().find((t) => t.tool.name === params.name)
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
        return taskStore.create(
          modern,
          wire.send,
          (inputResponses) =>
            Effect.map(found.handler(args, { ...context, inputResponses, requestState: undefined }), toResult)
        )
      }
      return Effect.map(found.handler(args, context), toResult)
    }
    case "prompts/list": {
      const page = paginate(definition.prompts ?? [], definition.pageSize, params.cursor)
      return Effect.succeed({
        prompts: page.items.map((p) => p.prompt),
        nextCursor: page.nextCursor
      })
    }
    case "prompts/get": {
      const found = definition.prompts?.find((p) => p.prompt.name === params.name)
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

/** A 2026-07-28 request gets a resultType and, where cacheable, ttlMs/cacheScope. */
export const modernize = (definition: Definition, method: string, params: Record<string, unknown>, result: unknown) => {
  if (!isObject(result) || (!isModernRequest(params) && method !== "server/discover")) return result
  return {
    resultType: "complete",
    ...(CACHEABLE.has(method)
      ? { ttlMs: definition.ttlMs ?? 0, cacheScope: definition.cacheScope ?? "public" }
      : {}),
    ...result
  }
}
