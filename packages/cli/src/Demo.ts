/**
 * The demo: an embedded in-memory server built from `Scenarios.demo`, and a transcript that
 * walks through what the client can do (tools, progress, prompts, resources, completion and a
 * typed error). `npm start` prints this transcript.
 *
 * @since 0.1.0
 */
import type * as McpClient from "@mcp-effect/client/McpClient"
import type * as McpError from "@mcp-effect/client/McpError"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import * as FakeServer from "@mcp-effect/testing/FakeServer"
import * as Scenarios from "@mcp-effect/testing/Scenarios"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as format from "./internal/format.js"
import { withProgress } from "./internal/progress.js"

/**
 * The name of the embedded demo server.
 *
 * @since 0.1.0
 * @category constants
 */
export const serverName = "demo"

/**
 * A configuration for the embedded demo server (`Scenarios.demo`, served in memory), named
 * {@link serverName}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const server: Effect.Effect<ServerConfig> = Effect.map(
  FakeServer.make(Scenarios.demo),
  (fake) => fake.config({ name: serverName })
)

/**
 * What the transcript saw, for its closing line and for tests.
 *
 * @since 0.1.0
 * @category models
 */
export interface Summary {
  readonly servers: number
  readonly tools: number
  readonly prompts: number
  readonly resources: number
  readonly toolCalls: number
  readonly progressNotifications: number
  /** The `_tag` of the error the deliberate failing call produced (`isError` for a tool error result). */
  readonly expectedError: string | undefined
}

/**
 * Errors that end the transcript early (the deliberate error case is caught and printed).
 *
 * @since 0.1.0
 * @category models
 */
export type TranscriptError = McpClient.CallToolError | McpError.CapabilityError

/**
 * The name of the tool the error case calls; no server is expected to offer it.
 *
 * @since 0.1.0
 * @category constants
 */
export const missingTool = "no-such-tool"

const heading = (title: string) => Console.log(`\n## ${title}`)
const print = (text: string) => Console.log(text)
const skipped = (what: string) => print(`(skipped: no server offers ${what})`)

/**
 * Prints the demo transcript for a connected client to the `Console`. Steps that need a tool,
 * prompt or resource of the demo server are skipped when no server offers it, so the
 * transcript also runs against other servers.
 *
 * @since 0.1.0
 * @category transcript
 */
export const transcript = (client: McpClient.Service): Effect.Effect<Summary, TranscriptError> =>
  Effect.gen(function*() {
    yield* print("mcp-effect demo")
    for (const connection of client.servers) {
      yield* print(format.negotiated(connection.name, connection.kind, connection.negotiated()))
    }
    const showServer = client.servers.length > 1
    let toolCalls = 0

    const tools = yield* client.listTools()
    yield* heading(`tools (${tools.length})`)
    for (const tool of tools) yield* print(format.tool(tool, showServer))
    const hasTool = (name: string) => tools.some((t) => t.name === name)

    const call = (name: string, args: Record<string, unknown>) =>
      Effect.gen(function*() {
        yield* heading(`callTool(${JSON.stringify(name)}, ${JSON.stringify(args)})`)
        if (!hasTool(name)) return yield* skipped(`a tool named "${name}"`)
        toolCalls++
        const result = yield* client.callTool(name, args)
        yield* print(format.callResult(result))
      })
    yield* call("echo", { message: "Hello from mcp-effect!" })
    yield* call("add", { a: 2, b: 40 })

    const progressArgs = { steps: 3, delayMs: 20 }
    yield* heading(`callTool("progress", ${JSON.stringify(progressArgs)}) with onProgress`)
    let progressNotifications = 0
    if (hasTool("progress")) {
      toolCalls++
      const { notifications, result } = yield* withProgress(
        (progress) => print(format.progress(progress)),
        (onProgress) => client.callTool("progress", progressArgs, { onProgress })
      )
      progressNotifications = notifications
      yield* print(format.callResult(result))
    } else {
      yield* skipped("a tool named \"progress\"")
    }

    const prompts = yield* client.listPrompts()
    yield* heading(`prompts (${prompts.length})`)
    for (const prompt of prompts) yield* print(format.prompt(prompt, showServer))
    const hasGreeting = prompts.some((p) => p.name === "greeting")
    yield* heading("getPrompt(\"greeting\", {\"name\":\"Ada\"})")
    if (hasGreeting) yield* print(format.promptResult(yield* client.getPrompt("greeting", { name: "Ada" })))
    else yield* skipped("a prompt named \"greeting\"")

    const resources = yield* client.listResources()
    yield* heading(`resources (${resources.length})`)
    for (const resource of resources) yield* print(format.resource(resource, showServer))
    const readme = resources.find((r) => r.uri === "demo://readme") ?? resources[0]
    yield* heading(`readResource(${JSON.stringify(readme?.uri ?? "demo://readme")})`)
    if (readme !== undefined) {
      const read = yield* client.readResource(readme.uri, { server: readme.server })
      for (const contents of read.contents) yield* print(format.resourceContents(contents))
    } else {
      yield* skipped("a resource")
    }

    const request: McpSchema.CompleteRequest = {
      ref: { type: "ref/prompt", name: "greeting" },
      argument: { name: "name", value: "A" }
    }
    yield* heading("complete({ ref: ref/prompt \"greeting\", argument: name = \"A\" })")
    if (hasGreeting) {
      const { completion } = yield* client.complete(request)
      const total = completion.total !== undefined ? ` (${completion.total} in total)` : ""
      yield* print(`${completion.values.map(format.clean).join(", ") || "(no values)"}${total}`)
    } else {
      yield* skipped("a prompt named \"greeting\"")
    }

    yield* heading(`error case: callTool(${JSON.stringify(missingTool)}, {})`)
    const failed = yield* Effect.either(client.callTool(missingTool, {}))
    let expectedError: string | undefined
    if (Either.isLeft(failed)) {
      const error = failed.left
      expectedError = error._tag
      const code = "code" in error ? ` (code ${error.code})` : ""
      yield* print(`${error._tag}: ${format.clean(error.message)}${code}`)
    } else if (failed.right.isError === true) {
      // Some servers answer an unknown tool with a tool error rather than a JSON-RPC error.
      expectedError = "isError"
      yield* print(format.callResult(failed.right))
    } else {
      yield* print(`unexpectedly succeeded:\n${format.callResult(failed.right)}`)
    }

    const summary: Summary = {
      servers: client.servers.length,
      tools: tools.length,
      prompts: prompts.length,
      resources: resources.length,
      toolCalls,
      progressNotifications,
      expectedError
    }
    yield* print(
      `\ndemo complete: ${format.plural(summary.servers, "server")}, ${format.plural(summary.tools, "tool")}, ` +
        `${format.plural(summary.prompts, "prompt")}, ${format.plural(summary.resources, "resource")}; ` +
        `${format.plural(toolCalls, "tool call")}, ${format.plural(progressNotifications, "progress notification")}, ` +
        `expected error ${expectedError ?? "missing"}`
    )
    return summary
  })
