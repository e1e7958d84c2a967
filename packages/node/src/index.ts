/**
 * @since 0.1.0
 */
export * as Connect from "./Connect.js"
/**
 * @since 0.1.0
 */
export * as NodeChildProcess from "./NodeChildProcess.js"
/**
 * @since 0.2.0
 */
export * as NodeDoctor from "./NodeDoctor.js"
/**
 * @since 0.2.0
 */
export { doctor } from "./NodeDoctor.js"
/**
 * @since 0.2.0
 */
export * as NodeMcpBundle from "./NodeMcpBundle.js"
/**
 * @since 0.1.0
 */
export * as NodeMcpClient from "./NodeMcpClient.js"
/**
 * @since 0.1.0
 */
export { connect, fromRuntime } from "./Connect.js"
/**
 * @since 0.2.0
 */
export { connectFromConfig } from "./Connect.js"
/**
 * @since 0.1.0
 */
export { McpClientLive } from "./NodeMcpClient.js"
/**
 * @since 0.2.0
 */
export * as NodeEraCache from "./NodeEraCache.js"
/**
 * @since 0.1.0
 */
export * as NodeJsonSchema from "./NodeJsonSchema.js"
/**
 * @since 0.1.0
 */
export * as NodeOAuth from "./NodeOAuth.js"
/**
 * @since 0.1.0
 */
export * as NodeOAuthBrowser from "./NodeOAuthBrowser.js"
/**
 * @since 0.1.0
 */
export * as UndiciHttpClient from "./UndiciHttpClient.js"
