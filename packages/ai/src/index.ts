/**
 * The `@effect/ai` bridge. The Vercel AI SDK tools are a module of their own,
 * `@mcp-effect/ai/AiSdkTools`, so that importing this entry never loads `ai`.
 *
 * @since 0.1.0
 */
export * as McpToolkit from "./McpToolkit.js"
/**
 * @since 0.1.0
 */
export * as McpToolError from "./McpToolError.js"
