/**
 * The Promise facade for programs that never import Effect: `connect`, `connectFromConfig` and
 * the error classes, loaded from `@mcp-effect/node/standalone`, a bundle that holds the parts
 * of Effect it uses. Such a program does not load Effect's module graph from `node_modules`,
 * so importing it costs about what importing an official SDK client does.
 *
 * The trade-off: the bundle carries its own copy of Effect. A program that imports Effect as
 * well loads it twice, and the two do not mix (an effect of one cannot run on the other's
 * runtime), which is why `fromRuntime` and `configsFor` are not here: an Effect program uses
 * `@mcp-effect/node`.
 * The error classes are the bundle's own: catch them with the classes exported here, not with
 * those of `@mcp-effect/client/McpError` (`_tag` and `isMcpError` work with either).
 *
 * @example
 * ```ts
 * import { connect, RequestTimeoutError } from "@mcp-effect/node/standalone"
 *
 * const client = await connect("npx -y @modelcontextprotocol/server-everything stdio")
 * try {
 *   console.log(await client.callTool("echo", { message: "hi" }, { timeout: "10 seconds" }))
 * } catch (error) {
 *   if (error instanceof RequestTimeoutError) console.warn(`no answer from ${error.server}`)
 *   else throw error
 * } finally {
 *   await client.close()
 * }
 * ```
 *
 * @since 0.2.0
 */

/**
 * @since 0.2.0
 */
export type {
  Client,
  ConnectFromConfigOptions,
  ConnectOptions,
  Hidden,
  Logger,
  Promised,
  Reshaped,
  ServerHandle,
  Signal,
  StateListener,
  SubscriptionHandle,
  WithSignal
} from "./Connect.js"

/**
 * @since 0.2.0
 */
export { connect, connectFromConfig } from "./Connect.js"

/**
 * @since 0.2.0
 */
export * from "@mcp-effect/client/McpError"
