/**
 * Which server a client method goes to: one table, a row per method of `ServerConnection` the
 * client offers under the same name. `McpClient.Service` derives those methods' types from the
 * rows (`McpClient.Routed`), and `mcpClient.ts` builds them from the rows, so a request method
 * added to the connection reaches the client (and the Promise facade) with one row here.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { AmbiguousServerError, ConnectError, ServerNotFoundError } from "../../McpError.js"
import type { ServerConnection } from "../../ServerConnection.js"
import type { Task } from "../../Task.js"

/** @internal */
export type Feature = "tools" | "prompts" | "resources"

/** A connection's method called with the client call's own arguments, or with `args` instead. @internal */
export type Call = (
  connection: ServerConnection,
  args?: ReadonlyArray<unknown>
) => Effect.Effect<unknown, unknown, unknown>

/** How a route finds its servers (built by `mcpClient.ts` over the client's connections). @internal */
export interface Router {
  readonly servers: ReadonlyArray<ServerConnection>
  readonly server: (name: string) => Effect.Effect<ServerConnection, ServerNotFoundError>
  /** `selected`, or the only server. */
  readonly only: (selected: string | undefined) => Effect.Effect<ServerConnection, ServerNotFoundError>
  /** Every server that offers `feature` (or `selected`), its items tagged with their server. */
  readonly aggregate: (feature: Feature, selected: string | undefined, call: Call) => Effect.Effect<unknown, unknown>
  /** One page of `selected` (or the only server), its items tagged with their server. */
  readonly page: (selected: string | undefined, call: Call) => Effect.Effect<unknown, unknown>
  /** `aggregate` of the tools, under the names the client shows (`toolNames.ts`). */
  readonly tools: (selected: string | undefined, call: Call) => Effect.Effect<unknown, unknown>
  /** `page` of the tools, under the names the client shows. */
  readonly toolsPage: (selected: string | undefined, call: Call) => Effect.Effect<unknown, unknown>
  /** The server of the tool shown as `name`, and the tool's name on that server. */
  readonly toolTarget: (
    name: string,
    selected: string | undefined
  ) => Effect.Effect<{ readonly connection: ServerConnection; readonly name: string }, unknown>
  readonly taskServer: (
    task: Task | string,
    selected: string | undefined
  ) => Effect.Effect<ServerConnection, ServerNotFoundError | AmbiguousServerError>
  readonly promptServer: (
    name: string | undefined,
    selected: string | undefined
  ) => Effect.Effect<ServerConnection, ConnectError | ServerNotFoundError>
  readonly resourceServer: (uri: string, selected: string | undefined) => Effect.Effect<
    ServerConnection,
    ConnectError | ServerNotFoundError
  >
  /** `selected`, else every server that `accepts` (concurrently; the results in a list). */
  readonly every: (
    selected: string | undefined,
    accepts: (connection: ServerConnection) => boolean,
    call: Call,
    combine: (results: ReadonlyArray<unknown>) => unknown
  ) => Effect.Effect<unknown, unknown, unknown>
}

/**
 * What the client adds to a connection's method (`McpClient.Routed`): `tagged` lists name each
 * item's server, `tagged page` a page's items, `tools` and `tools page` also a tool's own name;
 * the errors of finding the server by tool name
 * (`by tool`), of a task id (`by task`), or of a server name (`to one`).
 *
 * @internal
 */
export type Kind = "tagged" | "tagged page" | "tools" | "tools page" | "by tool" | "by task" | "to one"

/** A row: its kind, where the call's options (and `server`) are, and how it finds its server. @internal */
export interface Route<K extends Kind, O extends number = number> {
  readonly kind: K
  readonly options: O
  readonly run: (
    router: Router,
    selected: string | undefined,
    args: ReadonlyArray<unknown>,
    call: Call
  ) => Effect.Effect<unknown, unknown, unknown>
}

const route = <K extends Kind, O extends number>(kind: K, options: O, run: Route<K>["run"]): Route<K, O> => ({
  kind,
  options,
  run
})

/** Every server that offers `feature`, or `{ server }`. */
const aggregate = (feature: Feature) =>
  route("tagged", 0, (router, selected, _, call) => router.aggregate(feature, selected, call))

/** A page of `{ server }` or of the only server (a cursor belongs to the server that issued it). */
const page = route("tagged page", 1, (router, selected, _, call) => router.page(selected, call))

/** The server that offers the tool shown as the first argument, called with the tool's own name. */
const byTool = <O extends number>(options: O) =>
  route("by tool", options, (router, selected, args, call) =>
    Effect.flatMap(
      router.toolTarget(args[0] as string, selected),
      ({ connection, name }) => name === args[0] ? call(connection) : call(connection, [name, ...args.slice(1)])
    ))

/** A task's own server (a handle names it; a bare id needs `{ server }` unless there is one server). */
const byTask = <O extends number>(options: O) =>
  route(
    "by task",
    options,
    (router, selected, args, call) => Effect.flatMap(router.taskServer(args[0] as Task | string, selected), call)
  )

/** `{ server }`, or the only server. */
const toOnly = <O extends number>(options: O) =>
  route("to one", options, (router, selected, _, call) => Effect.flatMap(router.only(selected), call))

/** The server that lists the prompt `name` names, else the first one (whose own error then says why). */
const byPrompt = <O extends number>(options: O, name: (args: ReadonlyArray<unknown>) => string | undefined) =>
  route(
    "to one",
    options,
    (router, selected, args, call) => Effect.flatMap(router.promptServer(name(args), selected), call)
  )

/** The server that lists the resource of the first argument's URI, else the first one. */
const byResource = <O extends number>(options: O) =>
  route(
    "to one",
    options,
    (router, selected, args, call) => Effect.flatMap(router.resourceServer(args[0] as string, selected), call)
  )

/** `{ server }`, else every server that `accepts` (no result). */
const toEvery = <O extends number>(options: O, accepts: (connection: ServerConnection) => boolean) =>
  route("to one", options, (router, selected, _, call) => router.every(selected, accepts, call, () => undefined))

const declares = (capability: "logging") => (connection: ServerConnection) =>
  connection.negotiated()?.capabilities[capability] !== undefined

const listsTasks = (connection: ServerConnection) => {
  const tasks = connection.negotiated()?.capabilities.tasks
  return typeof tasks === "object" && tasks !== null && "list" in tasks
}

/**
 * The routed methods: their name, what the client adds (`Kind`), the position of their options
 * and how their server is found.
 *
 * @internal
 */
export const routes = {
  ping: toEvery(0, () => true),
  listTools: route("tools", 0, (router, selected, _, call) => router.tools(selected, call)),
  listPrompts: aggregate("prompts"),
  listResources: aggregate("resources"),
  listResourceTemplates: aggregate("resources"),
  listToolsPage: route("tools page", 1, (router, selected, _, call) => router.toolsPage(selected, call)),
  listPromptsPage: page,
  listResourcesPage: page,
  listResourceTemplatesPage: page,
  callTool: byTool(2),
  callToolAsTask: byTool(2),
  getTask: byTask(1),
  getTaskResult: byTask(1),
  waitForTask: byTask(1),
  // A saved task names its server; the server it names is the one asked (not `{ server }`).
  resumeTask: route(
    "to one",
    1,
    (router, _, args, call) => Effect.flatMap(router.server((args[0] as { readonly server: string }).server), call)
  ),
  cancelTask: byTask(1),
  updateTask: byTask(2),
  listTasks: route(
    "by task",
    0,
    (router, selected, _, call) =>
      router.every(selected, listsTasks, call, (lists) => (lists as ReadonlyArray<ReadonlyArray<Task>>).flat())
  ),
  getPrompt: byPrompt(2, (args) => args[0] as string),
  complete: byPrompt(1, (args) => {
    const ref = (args[0] as { readonly ref: { readonly type: string; readonly name?: string } }).ref
    return ref.type === "ref/prompt" ? ref.name : undefined
  }),
  readResource: byResource(1),
  subscribeResource: byResource(1),
  unsubscribeResource: byResource(1),
  setLogLevel: toEvery(1, declares("logging")),
  listen: toOnly(1),
  // The error (or its saved form) names its server. The optional answers look like options to
  // the types (`OptionsIndex`): the row says so, and the route ignores a `server` among them.
  resumeInputRequired: route(
    "to one",
    1,
    (router, _, args, call) => Effect.flatMap(router.server((args[0] as { readonly server: string }).server), call)
  )
}

/** @internal */
export type Routes = typeof routes
