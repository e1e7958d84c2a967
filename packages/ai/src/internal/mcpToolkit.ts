/**
 * @internal
 */
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as McpSchema from "@mcp-effect/client/McpSchema"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { McpToolError } from "../McpToolError.js"
import type * as McpToolkit from "../McpToolkit.js"
import * as Call from "./call.js"
import * as ToolOutput from "./toolOutput.js"

const viewText = (view: unknown): string => typeof view === "string" ? view : JSON.stringify(view) ?? ""

/** Any JSON object; the server validates against its own schema. @internal */
export const Parameters = Schema.Struct({}, Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** @internal */
export const Success: McpToolkit.Success = Schema.transform(
  Schema.Unknown,
  Schema.typeSchema(McpSchema.CallToolResult),
  {
    strict: true,
    // Only a result that went through the model (a replayed history) is decoded.
    decode: (view) => ({ content: [{ type: "text" as const, text: viewText(view) }] }),
    encode: (result) => ToolOutput.forModel(result)
  }
)

/** @internal */
export const Failure: McpToolkit.Failure = Schema.transform(Schema.Unknown, Schema.instanceOf(McpToolError), {
  strict: true,
  decode: (view) => new McpToolError({ server: "", tool: "", message: viewText(view) }),
  encode: (error) => error.message
})

/** @internal */
export const tool = (source: McpSchema.Tool, name: string = source.name): McpToolkit.McpTool => {
  let made: McpToolkit.McpTool = Tool.make(name, {
    description: ToolOutput.description(source),
    success: Success,
    failure: Failure,
    failureMode: "return"
  }).setParameters(Parameters.annotations({ jsonSchema: source.inputSchema }))
  const title = source.title ?? source.annotations?.title
  if (title !== undefined) made = made.annotate(Tool.Title, title)
  const hints = source.annotations
  if (hints?.readOnlyHint !== undefined) made = made.annotate(Tool.Readonly, hints.readOnlyHint)
  if (hints?.destructiveHint !== undefined) made = made.annotate(Tool.Destructive, hints.destructiveHint)
  if (hints?.idempotentHint !== undefined) made = made.annotate(Tool.Idempotent, hints.idempotentHint)
  if (hints?.openWorldHint !== undefined) made = made.annotate(Tool.OpenWorld, hints.openWorldHint)
  return made
}

/** @internal */
export const fromTools = (
  client: McpClient.Service,
  listed: ReadonlyArray<McpClient.ServerTool>,
  options: McpToolkit.Options
): Effect.Effect<McpToolkit.Built> => {
  const sources = options.filter === undefined ? listed : listed.filter(options.filter)
  const names = ToolOutput.names(sources, options.name ?? ToolOutput.defaultNaming)
  const toolkit = Toolkit.make(...sources.map((source, i) => tool(source, names[i]))) as Toolkit.Toolkit<
    McpToolkit.Tools
  >
  const handlers: Record<string, (params: Record<string, unknown>) => Effect.Effect<unknown, McpToolError>> = {}
  const byName = new Map<string, McpClient.ServerTool>()
  sources.forEach((source, i) => {
    handlers[names[i]!] = Call.call(client, source, options)
    byName.set(names[i]!, source)
  })
  return Effect.map(
    toolkit.toContext(handlers as Toolkit.HandlersFrom<McpToolkit.Tools>),
    (context) => ({ toolkit, handlers: context, sources: byName })
  )
}

const buildWith = (client: McpClient.Service, options: McpToolkit.Options) =>
  Effect.flatMap(client.listTools({ server: options.server }), (listed) => fromTools(client, listed, options))

const withHandlerOf = (client: McpClient.Service, options: McpToolkit.Options) =>
  Effect.flatMap(buildWith(client, options), (built) => Effect.provide(built.toolkit, built.handlers))

/** @internal */
export const build = (options: McpToolkit.Options = {}) =>
  Effect.flatMap(McpClient.McpClient, (client) => buildWith(client, options))

/** @internal */
export const make = (options: McpToolkit.Options = {}) =>
  Effect.flatMap(McpClient.McpClient, (client) => withHandlerOf(client, options))

const LIST_CHANGED = "notifications/tools/list_changed"

/** @internal */
export const changes = (options: McpToolkit.Options = {}) =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const concerned = (server: string) => options.server === undefined || server === options.server
    // One pending re-list is enough however many notifications arrive meanwhile.
    const changed = yield* Queue.sliding<void>(1)
    yield* client.onNotification((server, method) => {
      if (method === LIST_CHANGED && concerned(server)) Queue.unsafeOffer(changed, undefined)
    })
    // 2026-07-28 servers announce changes only on a subscription; its notifications also reach
    // the listener above, the subscription's own queue is drained.
    for (const connection of client.servers) {
      if (!concerned(connection.name) || connection.negotiated()?.era !== "modern") continue
      yield* client.listen({ toolsListChanged: true }, { server: connection.name }).pipe(
        Effect.flatMap((subscription) => Effect.forkScoped(Stream.runDrain(subscription.notifications))),
        Effect.catchAll((error) =>
          Effect.logWarning(`no tool change notifications from ${connection.name}: ${error.message}`)
        )
      )
    }
    return Stream.concat(Stream.succeed<void>(undefined), Stream.fromQueue(changed)).pipe(
      Stream.mapEffect(() => withHandlerOf(client, options))
    )
  }))
