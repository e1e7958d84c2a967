/**
 * Ready-made fake server definitions: `demo` is what `npm start` and the examples talk to.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as FakeServer from "./FakeServer.js"
import { tool } from "./FakeServer.js"

const NAMES = ["Ada", "Alan", "Alice", "Barbara", "Grace", "Linus", "Margaret"]

// A 1×1 transparent PNG.
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

const num = (u: unknown, fallback: number): number => (typeof u === "number" && Number.isFinite(u) ? u : fallback)

/**
 * The demo server: a handful of tools, a prompt, resources and a template.
 *
 * @since 0.1.0
 * @category scenarios
 */
export const demo: FakeServer.Definition = {
  serverInfo: { name: "mcp-effect-demo", version: "0.1.0", title: "mcp-effect demo server" },
  instructions: "A demo server: try the echo and add tools, the greeting prompt and the demo:// resources.",
  tools: [
    tool("echo", (args) => Effect.succeed(String(args.message ?? "")), {
      description: "Returns its message",
      inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
      annotations: { readOnlyHint: true, openWorldHint: false }
    }),
    tool(
      "add",
      (args) => {
        const sum = num(args.a, 0) + num(args.b, 0)
        return Effect.succeed({ content: [{ type: "text", text: String(sum) }], structuredContent: { sum } })
      },
      {
        title: "Add two numbers",
        description: "Adds a and b",
        inputSchema: {
          type: "object",
          properties: { a: { type: "number" }, b: { type: "number" } },
          required: ["a", "b"]
        },
        outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
      }
    ),
    tool(
      "progress",
      (args, context) =>
        Effect.gen(function*() {
          const steps = Math.min(num(args.steps, 3), 1000)
          for (let step = 1; step <= steps; step++) {
            yield* Effect.sleep(num(args.delayMs, 10))
            yield* context.progress(step, steps, `step ${step} of ${steps}`)
          }
          return `done after ${steps} steps`
        }),
      {
        description: "Reports progress for each step",
        inputSchema: { type: "object", properties: { steps: { type: "number" }, delayMs: { type: "number" } } }
      }
    ),
    tool(
      "slow",
      (args) => Effect.as(Effect.sleep(num(args.ms, 1000)), `slept ${num(args.ms, 1000)} ms`),
      {
        description: "Answers after ms milliseconds",
        inputSchema: { type: "object", properties: { ms: { type: "number" } } }
      }
    ),
    tool(
      "fail",
      () => Effect.succeed({ content: [{ type: "text", text: "this tool always fails" }], isError: true }),
      { description: "Returns a tool error (isError)" }
    ),
    tool("blob", (args) => Effect.succeed("x".repeat(Math.min(num(args.bytes, 1024), 512 * 1024 * 1024))), {
      description: "Returns a text block of the requested size",
      inputSchema: { type: "object", properties: { bytes: { type: "number" } } }
    }),
    tool("image", () => Effect.succeed({ content: [{ type: "image", data: PIXEL, mimeType: "image/png" }] }), {
      description: "Returns a 1×1 PNG"
    }),
    tool(
      "log",
      (args, context) =>
        Effect.as(
          context.notify("notifications/message", {
            level: typeof args.level === "string" ? args.level : "info",
            logger: "demo",
            data: args.data ?? null
          }),
          "logged"
        ),
      {
        description: "Sends a notifications/message with the given level and data",
        inputSchema: { type: "object", properties: { level: { type: "string" }, data: {} } }
      }
    ),
    tool("crash", (_, context) => Effect.as(context.crash, "unreachable"), {
      description: "Crashes the server",
      annotations: { destructiveHint: true }
    })
  ],
  prompts: [
    {
      prompt: {
        name: "greeting",
        title: "Greeting",
        description: "Greets someone",
        arguments: [{ name: "name", required: true }, { name: "style", description: "formal or casual" }]
      },
      render: (args) => ({
        description: "A greeting",
        messages: [{
          role: "user",
          content: {
            type: "text",
            text: args.style === "formal" ? `Good day, ${args.name}.` : `Hi ${args.name}!`
          }
        }]
      })
    }
  ],
  resources: [
    {
      resource: { uri: "demo://readme", name: "readme", title: "Read me", mimeType: "text/plain" },
      contents: [{ uri: "demo://readme", mimeType: "text/plain", text: "mcp-effect demo server. Hello!" }]
    },
    {
      resource: { uri: "demo://pixel.png", name: "pixel", mimeType: "image/png" },
      contents: [{ uri: "demo://pixel.png", mimeType: "image/png", blob: PIXEL }]
    }
  ],
  resourceTemplates: [{ uriTemplate: "demo://greeting/{name}", name: "greeting-resource" }],
  completions: (ref, argument) =>
    ref.type === "ref/prompt" && argument.name === "name"
      ? NAMES.filter((n) => n.toLowerCase().startsWith(argument.value.toLowerCase()))
      : []
}
