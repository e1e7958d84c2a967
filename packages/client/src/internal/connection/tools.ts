/**
 * Tools: the list (and the definitions calls go out under), lookup, `Mcp-Name`/`Mcp-Param-*`
 * headers, the `-32020` refresh-and-retry, input dialect refusal and output validation
 * (`validation.ts`), and tasks: a task-returning call is driven to its end (`../tasks/`). A call
 * goes through the connection's `withInput` sender and the -32020 refresh (`../request/`).
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HeaderParams from "../../HeaderParams.js"
import type { ConnectError, InputRequiredError, ValidationError } from "../../McpError.js"
import { InvalidResponseError, ToolNotFoundError } from "../../McpError.js"
import type { ToolPinMismatchError } from "../../McpError.js"
import type * as McpSchema from "../../McpSchema.js"
import type { RequestOptions, ServerConnection, UnsafeCallTool } from "../../ServerConnection.js"
import { Task } from "../../Task.js"
import { refreshOnHeaderMismatch } from "../request/headerMismatch.js"
import type { OutgoingRequest, Send } from "../request/send.js"
import { DECLARED_MAX_CEILING } from "../resultLimits.js"
import * as Tasks from "../tasks/tasks.js"
import type { Core, Session } from "./core.js"
import * as Decode from "./decode.js"
import * as Lists from "./lists.js"
import * as Pages from "./pages.js"
import * as ResultGovernance from "./resultGovernance.js"
import * as ToolPins from "./toolPins.js"
import * as ToolPlans from "./toolPlans.js"
import * as ToolTasks from "./toolTasks.js"
import * as Validation from "./validation.js"

/** A `_meta` key inside tool arguments belongs to the request, not to the tool. */
const callToolParams = (name: string, args: Record<string, unknown> | undefined): Record<string, unknown> => {
  if (args === undefined) return { name, arguments: {} }
  if (!Object.prototype.hasOwnProperty.call(args, "_meta")) return { name, arguments: args }
  const { _meta, ...rest } = args
  return { name, arguments: rest, _meta }
}

const findTool = (tools: ReadonlyArray<McpSchema.Tool>, name: string) => tools.find((t) => t.name === name)

type Augment = (params: Record<string, unknown>, tool: McpSchema.Tool | undefined) => Record<string, unknown>

/** A call's raw result, the definition it went out under, and the era it went out on. */
interface Sent {
  readonly raw: unknown
  readonly tool: McpSchema.Tool | undefined
  readonly era: "legacy" | "modern"
}

/**
 * The request of a call under the tool definition `tool`, or why it cannot go out: one lookup
 * of the definition serves the input check, the headers and (see `invoke`) the output check.
 */
const requestOf = (
  name: string,
  args: Record<string, unknown> | undefined,
  requestOptions: RequestOptions | undefined,
  augment: Augment,
  tool: McpSchema.Tool | undefined,
  headers: Record<string, string> | undefined
): OutgoingRequest => ({
  method: "tools/call",
  params: augment(callToolParams(name, args), tool),
  options: requestOptions,
  headers
})

/** What the fiber-free call needs of the tools part. */
interface UnsafeDeps {
  readonly now: NonNullable<Send<ConnectError | InputRequiredError | ValidationError>["now"]>
  readonly era: () => "legacy" | "modern"
  readonly tasksDeclared: boolean
  readonly knownDefinition: (name: string) => { readonly tool: McpSchema.Tool | undefined } | undefined
  readonly refusalOf: (tool: McpSchema.Tool | undefined) => ValidationError | undefined
  readonly forgetTools: Effect.Effect<void>
  readonly lookup: (
    name: string,
    args: Record<string, unknown> | undefined,
    requestOptions: RequestOptions | undefined,
    onTool: (tool: McpSchema.Tool | undefined) => void
  ) => Effect.Effect<OutgoingRequest, ValidationError | ConnectError>
  readonly requestOf: (
    name: string,
    args: Record<string, unknown> | undefined,
    requestOptions: RequestOptions | undefined,
    tool: McpSchema.Tool | undefined
  ) => OutgoingRequest
  readonly finishCall: (
    requestOptions: RequestOptions | undefined,
    sent: Sent
  ) => Effect.Effect<McpSchema.CallToolResult, ConnectError | InputRequiredError | ValidationError>
  readonly isPlainResult: (raw: unknown, tool: McpSchema.Tool | undefined) => raw is McpSchema.CallToolResult
}

// Without a fiber where the composition offers it (`Send.now`): the usual outcome — a
// complete, text-only result with nothing to validate, or an error — reaches `onDone` done;
// anything else as the effect that goes on from it the general way (input rounds, tasks,
// output validation, the -32020 refresh). A transport that writes without a fiber takes no
// headers: none are computed.
const unsafeCallToolWith = (d: UnsafeDeps): UnsafeCallTool => (name, args, requestOptions, onDone) => {
  const known = d.knownDefinition(name)
  if (known === undefined || d.refusalOf(known.tool) !== undefined) return undefined
  let tool = known.tool
  const era = d.era()
  const refresh = () =>
    Effect.zipRight(d.forgetTools, d.lookup(name, args, requestOptions, (refreshed) => (tool = refreshed)))
  const request = Object.assign(d.requestOf(name, args, requestOptions, tool), { refresh })
  return d.now(request, (outcome) => {
    if (outcome._tag === "Continue") {
      return onDone({
        _tag: "Continue",
        effect: Effect.flatMap(outcome.effect, (raw) => d.finishCall(requestOptions, { raw, tool, era }))
      })
    }
    const exit = outcome.exit
    if (Exit.isFailure(exit)) {
      return onDone({
        _tag: "Done",
        exit: exit as Exit.Exit<never, ConnectError | InputRequiredError | ValidationError>
      })
    }
    const raw = exit.value
    onDone(
      !((era === "legacy" || d.tasksDeclared) && Tasks.isCreated(raw, era)) && d.isPlainResult(raw, tool)
        ? { _tag: "Done", exit: exit as Exit.Exit<McpSchema.CallToolResult> }
        : { _tag: "Continue", effect: d.finishCall(requestOptions, { raw, tool, era }) }
    )
  })
}

// The effect waits for the call sent without a fiber. A fiber interrupted while it waits exits,
// so an observer of its exit abandons the call (removed once the call settles). An interruption
// frame instead (`uninterruptibleMask` + `catchAllCause`, or a canceler returned to
// `Effect.async`) allocates more per call (docs/performance.md, "Idioms").
const awaitingUnsafe = (
  unsafeCallTool: UnsafeCallTool,
  effectCallTool: ServerConnection["callTool"]
): ServerConnection["callTool"] =>
(name, args, requestOptions) =>
  Effect.withFiberRuntime((fiber) =>
    Effect.async<
      McpSchema.CallToolResult,
      ConnectError | InputRequiredError | ValidationError | ToolNotFoundError | ToolPinMismatchError
    >(
      (resume) => {
        let settled = false
        const onExit = () => abandon?.()
        const abandon = unsafeCallTool(name, args, requestOptions, (outcome) => {
          settled = true
          fiber.removeObserver(onExit)
          resume(outcome._tag === "Done" ? outcome.exit : outcome.effect)
        })
        if (abandon === undefined) resume(effectCallTool(name, args, requestOptions))
        else if (!settled) fiber.addObserver(onExit)
      }
    )
  )

type Calls = Pick<ServerConnection, "callTool" | "unsafeCallTool" | "callToolAsTask">

/** The calls of a server with a tool filter: a filtered tool is refused, nothing sent. */
const filtered = (server: string, allowed: (name: string) => boolean, calls: Calls): Calls => {
  const refused = (name: string) => allowed(name) ? undefined : new ToolNotFoundError({ name, server })
  const { callTool, callToolAsTask, unsafeCallTool } = calls
  return {
    callTool: (name, args, options) => {
      const error = refused(name)
      return error === undefined ? callTool(name, args, options) : Effect.fail(error)
    },
    // `undefined` (not now): the caller takes `callTool`, which refuses.
    unsafeCallTool: unsafeCallTool === undefined ?
      undefined :
      (name, args, options, onDone) => allowed(name) ? unsafeCallTool(name, args, options, onDone) : undefined,
    callToolAsTask: (name, args, options) => {
      const error = refused(name)
      return error === undefined ? callToolAsTask(name, args, options) : Effect.fail(error)
    }
  }
}

/** @internal */
export type ToolMethods = Pick<
  ServerConnection,
  | "listTools"
  | "listToolsPage"
  | "callTool"
  | "unsafeCallTool"
  | "callToolAsTask"
  | "getTask"
  | "getTaskResult"
  | "waitForTask"
  | "resumeTask"
  | "cancelTask"
  | "updateTask"
  | "listTasks"
>

/** What tools use of the core: what lists use (the tools list), and the call path. @internal */
export type Needs =
  & Lists.Needs
  & Pick<
    Core,
    | "options"
    | "tasksDeclared"
    | "currentSession"
    | "toolAllowed"
    | "toolPin"
    | "clock"
    | "resultLimits"
    | "resultStore"
  >

/**
 * The tools of a list a caller may see: the server's filter, then the drift pins, then (on
 * 2026-07-28 HTTP) only tools whose x-mcp-header annotations are valid, since the others cannot
 * be called correctly; they are left out with a warning. `complete`: the whole list (a page
 * cannot tell which pinned tools are gone).
 */
const visibleTools = (core: Needs, pins: ToolPins.Pins | undefined) => {
  const { server } = core
  const allowed = core.toolAllowed
  const withValidHeaders = (tools: ReadonlyArray<McpSchema.Tool>, s: Session) => {
    if (s.negotiated.era !== "modern" || !core.isHttp()) return Effect.succeed(tools)
    const kept: Array<McpSchema.Tool> = []
    const dropped: Array<string> = []
    for (const tool of tools) {
      const result = HeaderParams.validate(tool.inputSchema)
      if (result.valid) kept.push(tool)
      else dropped.push(`${tool.name.slice(0, 64)} (${result.reason})`)
    }
    return dropped.length === 0 ? Effect.succeed(kept) : Effect.as(
      Effect.logWarning(`${server}: left out tools with invalid x-mcp-header annotations: ${dropped.join(", ")}`),
      kept
    )
  }
  return (listed: ReadonlyArray<McpSchema.Tool>, s: Session, complete: boolean) => {
    const visible = allowed === undefined ? listed : listed.filter((tool) => allowed(tool.name))
    return pins === undefined
      ? withValidHeaders(visible, s)
      : Effect.flatMap(pins.check(visible, complete ? listed : undefined), (tools) => withValidHeaders(tools, s))
  }
}

/** @internal */
export const make = (core: Needs): ToolMethods => {
  const { server } = core
  const jsonSchema = core.options.jsonSchema
  const validation = Validation.make(server, core.options)

  // The server's tool filter: a filtered tool is in no list, and calling it is refused here.
  const allowed = core.toolAllowed
  // Drift pinning: checked after the filter (a filtered tool is never judged), before the headers.
  const pins = core.toolPin === undefined ? undefined : ToolPins.make(core, core.toolPin)
  const usable = visibleTools(core, pins)

  // The definitions calls are made under: the last list fetched, whatever its freshness; a
  // -32020 mismatch is what refreshes them.
  let knownTools: ReadonlyArray<McpSchema.Tool> | undefined
  const listTools = (requestOptions?: RequestOptions): Effect.Effect<ReadonlyArray<McpSchema.Tool>, ConnectError> =>
    Effect.flatMap(
      Effect.tap(
        Lists.listAll(core, "tools/list", "tools", Decode.tools, requestOptions),
        (tools) =>
          Effect.sync(() => {
            knownTools = tools
          })
      ),
      (tools) => Effect.flatMap(core.session, (s) => usable(tools, s, true))
    )

  /** Whether a call needs its tool's definition: for `Mcp-Param-*` headers (2026-07-28 HTTP). */
  const headersNeedDefinition = () => core.currentSession()?.negotiated.era === "modern" && core.isHttp()

  const { callHeaders, planOf, refusalOf } = ToolPlans.make(server, validation, headersNeedDefinition)
  const { methods: taskMethods, tasks, withTask } = ToolTasks.make(core, validation)

  /**
   * The definition a call of `name` goes out under when it needs no fetching: none when nothing
   * needs it (no validation, no `Mcp-Param-*` headers), else the tool in the last list fetched;
   * `undefined` while that list is unknown.
   */
  const knownDefinition = (name: string): { readonly tool: McpSchema.Tool | undefined } | undefined =>
    jsonSchema === undefined && !headersNeedDefinition()
      ? { tool: undefined }
      : knownTools === undefined
      ? undefined
      : { tool: findTool(knownTools, name) }

  // Calls go through the input rounds, then a refresh of the tool's definition on -32020.
  const toolSend = refreshOnHeaderMismatch(core.withInput)

  /**
   * Sends a `tools/call`: the definition it goes out under is the one its result is checked
   * against (a -32020 retry goes out, and is checked, under the refreshed one).
   */
  const invoke = (
    name: string,
    args: Record<string, unknown> | undefined,
    requestOptions: RequestOptions | undefined,
    augment: Augment
  ): Effect.Effect<Sent, ConnectError | InputRequiredError | ValidationError> => {
    let sentUnder: McpSchema.Tool | undefined
    return Effect.flatMap(
      lookup(name, args, requestOptions, augment, true, (tool) => (sentUnder = tool)),
      (request) =>
        Effect.map(
          toolSend(request),
          (raw) => ({ raw, tool: sentUnder, era: core.currentSession()?.negotiated.era ?? "legacy" })
        )
    )
  }

  /**
   * The request of a call under the definition it goes out under (told to `onTool`): the known
   * one, the list fetched once when unknown. On -32020 (`refresh`) the definition may have
   * changed: the list is re-fetched and the request recomputed. `headed`: with its headers.
   */
  const lookup = (
    name: string,
    args: Record<string, unknown> | undefined,
    requestOptions: RequestOptions | undefined,
    augment: Augment,
    headed: boolean,
    onTool: (tool: McpSchema.Tool | undefined) => void
  ): Effect.Effect<OutgoingRequest, ValidationError | ConnectError> => {
    const requestFor = (
      tool: McpSchema.Tool | undefined
    ): Effect.Effect<OutgoingRequest, ValidationError | ConnectError> => {
      const refused = refusalOf(tool)
      if (refused !== undefined) return Effect.fail(refused)
      const headers = headed ? callHeaders(name, tool, args) : undefined
      if (headers instanceof InvalidResponseError) return Effect.fail(headers)
      onTool(tool)
      return Effect.succeed(Object.assign(requestOf(name, args, requestOptions, augment, tool, headers), { refresh }))
    }
    const find = Effect.suspend(() => {
      const known = knownDefinition(name)
      return known !== undefined
        ? requestFor(known.tool)
        : Effect.flatMap(listTools(), (tools) => requestFor(findTool(tools, name)))
    })
    const refresh = () => Effect.zipRight(forgetTools, find)
    return find
  }

  // A stale definition: the shared copy (another connection's, maybe) is as stale as the own.
  const forgetTools = Effect.zipRight(
    Effect.sync(() => {
      core.cache.delete(Lists.listKeys.tools)
      knownTools = undefined
    }),
    core.shared?.forget(Lists.listKeys.tools) ?? Effect.void
  )

  /** A result of text blocks with nothing to validate: its own decoding, no effect needed. */
  const isPlainResult = (raw: unknown, tool: McpSchema.Tool | undefined): raw is McpSchema.CallToolResult =>
    Decode.isPlainTextResult(raw) && (tool === undefined || raw.isError === true || !planOf(tool).checksOutput)

  /** A plain `tools/call` result, checked, its structured content against the output schema. */
  const toolResult = (raw: unknown, tool: McpSchema.Tool | undefined, era: "legacy" | "modern") =>
    // The usual result needs no effect of its own: every step of one costs CPU per call.
    isPlainResult(raw, tool)
      ? Effect.succeed(raw)
      : Effect.flatMap(Decode.callTool(server, "tools/call", raw), (result) =>
        Effect.as(validation.checkOutput(tool, result, era), result))

  // A task-returning call is driven to its end transparently (polled at the server's pace,
  // input requests answered once each, bounded by the task's ttlMs).
  // On 2026-07-28 a task answers only a client that declared the extension.
  const finishCall = (requestOptions: RequestOptions | undefined, { era, raw, tool }: Sent) =>
    (era === "legacy" || core.tasksDeclared) && Tasks.isCreated(raw, era)
      ? Effect.flatMap(tasks().created(raw, tool, era), (task) => tasks().driveToResult(task, requestOptions))
      : toolResult(raw, tool, era)

  const effectCallTool: ServerConnection["callTool"] = (name, args, requestOptions) =>
    Effect.flatMap(invoke(name, args, requestOptions, withTask), (sent) => finishCall(requestOptions, sent))

  const unsafeCallTool: UnsafeCallTool | undefined = toolSend.now === undefined ? undefined : unsafeCallToolWith({
    now: toolSend.now,
    era: () => core.currentSession()?.negotiated.era ?? "legacy",
    tasksDeclared: core.tasksDeclared,
    knownDefinition,
    refusalOf,
    forgetTools,
    lookup: (name, args, requestOptions, onTool) => lookup(name, args, requestOptions, withTask, false, onTool),
    requestOf: (name, args, requestOptions, tool) => requestOf(name, args, requestOptions, withTask, tool, undefined),
    finishCall,
    isPlainResult
  })
  const callTool = unsafeCallTool === undefined ? effectCallTool : awaitingUnsafe(unsafeCallTool, effectCallTool)

  const callToolAsTask: ServerConnection["callToolAsTask"] = (name, args, taskOptions) =>
    Effect.flatMap(core.session, (s) => {
      const modern = s.negotiated.era === "modern"
      const ttl = taskOptions?.ttl === undefined ? {} : { ttl: Duration.toMillis(Duration.decode(taskOptions.ttl)) }
      return Effect.zipRight(
        tasks().gate("tools/call", ["requests", "tools", "call"]),
        Effect.flatMap(
          invoke(name, args, taskOptions, (params) => modern ? params : Object.assign({}, params, { task: ttl })),
          // A server that answers with the result at once yields a completed handle carrying it.
          ({ era, raw, tool }) =>
            Tasks.isCreated(raw, era)
              ? tasks().created(raw, tool, era)
              : Effect.map(toolResult(raw, tool, era), (result) =>
                new Task({ taskId: "", server, status: "completed", result, tool }))
        )
      )
    })

  // Result limits: a call's own, the server's or the client's, its result held to them.
  const limitedCalls = ResultGovernance.governed({
    configured: core.resultLimits,
    store: core.resultStore,
    ceiling: core.options.maxDeclaredResultChars ?? DECLARED_MAX_CEILING,
    knownTool: (name) => knownTools === undefined ? undefined : { tool: findTool(knownTools, name) },
    fetchTool: (name) =>
      Effect.orElseSucceed(Effect.map(listTools(), (tools) => findTool(tools, name)), () => undefined)
  }, { callTool, unsafeCallTool })
  const unfiltered = { ...limitedCalls, callToolAsTask }
  const own = allowed === undefined ? unfiltered : filtered(server, allowed, unfiltered)
  const calls = pins === undefined ? own : pins.guard(own, listTools())
  return {
    ...calls,
    listTools,
    listToolsPage: (cursor, requestOptions) =>
      Effect.flatMap(
        Pages.page(core, "tools/list", "tools", Decode.tools, cursor, requestOptions),
        (page) =>
          Effect.flatMap(core.session, (s) =>
            Effect.map(usable(page.items, s, false), (items) => Object.assign({}, page, { items })))
      ),
    ...taskMethods
  }
}
