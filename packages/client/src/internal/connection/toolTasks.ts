/**
 * The task side of tools: the task driver (`../tasks/`), made with the first task, the legacy
 * augmentation of a call to a tool that requires a task, and the task methods of a connection.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Resume from "../../Resume.js"
import type { ServerConnection } from "../../ServerConnection.js"
import { Task } from "../../Task.js"
import * as Tasks from "../tasks/tasks.js"
import type { Core } from "./core.js"
import * as Decode from "./decode.js"
import type * as Validation from "./validation.js"

/** What the task side uses of the core. @internal */
export type Needs = Pick<
  Core,
  "server" | "options" | "tasksDeclared" | "currentSession" | "session" | "send" | "maxPages"
>

/** @internal */
export const make = (core: Needs, validation: ReturnType<typeof Validation.make>) => {
  const { server } = core
  // Made with the first task: most connections never see one (docs/performance.md, "Idioms").
  let madeTasks: ReturnType<typeof Tasks.make> | undefined
  const tasks = () =>
    madeTasks ??= Tasks.make({
      server,
      handlers: core.options.handlers,
      declared: core.tasksDeclared,
      session: Effect.map(core.session, (s) => s.negotiated),
      send: (method, params, requestOptions, headers) =>
        core.send({ method, params, options: requestOptions, headers }),
      decodeResult: (value) => Decode.callTool(server, "tools/call", value),
      checkOutput: validation.checkOutput
    })

  /**
   * Legacy (2025-11-25) task augmentation: a tool that requires it is called as a task when
   * the server declares `tasks.requests.tools.call`.
   */
  const withTask = (
    params: Record<string, unknown>,
    tool: { readonly execution?: { readonly taskSupport?: string | undefined } | undefined } | undefined
  ): Record<string, unknown> => {
    const negotiated = core.currentSession()?.negotiated
    const declared = negotiated?.era === "legacy" &&
      Predicate.isRecord(negotiated.capabilities.tasks) && Predicate.isRecord(negotiated.capabilities.tasks.requests) &&
      Predicate.isRecord(negotiated.capabilities.tasks.requests.tools) &&
      negotiated.capabilities.tasks.requests.tools.call !== undefined
    return declared && tool?.execution?.taskSupport === "required" ? Object.assign({}, params, { task: {} }) : params
  }

  const methods: Pick<
    ServerConnection,
    "getTask" | "getTaskResult" | "waitForTask" | "resumeTask" | "cancelTask" | "updateTask" | "listTasks"
  > = {
    getTask: (task, requestOptions) => tasks().get(task, requestOptions),
    getTaskResult: (task, requestOptions) => tasks().result(task, requestOptions),
    waitForTask: (task, waitOptions) =>
      tasks().wait(task, { ...waitOptions, waitTimeout: waitOptions?.timeout, timeout: undefined }),
    resumeTask: (saved, waitOptions) =>
      tasks().resume(saved instanceof Task ? saved : Resume.toTask(saved), { waitTimeout: waitOptions?.timeout }),
    cancelTask: (task, requestOptions) => tasks().cancel(task, requestOptions),
    updateTask: (task, inputResponses, requestOptions) => tasks().update(task, inputResponses, requestOptions),
    listTasks: (requestOptions) => tasks().list(core.maxPages, requestOptions)
  }

  return { tasks, withTask, methods }
}
