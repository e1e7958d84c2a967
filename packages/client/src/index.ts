/**
 * @since 0.2.0
 */
export * as Browser from "./Browser.js"
/**
 * @since 0.2.0
 */
export * as BrowserJsonSchema from "./BrowserJsonSchema.js"
/**
 * @since 0.2.0
 */
export * as BrowserOAuth from "./BrowserOAuth.js"
export * as CacheStore from "./CacheStore.js"
/**
 * @since 0.1.0
 */
export * as ChildProcess from "./ChildProcess.js"
/**
 * @since 0.1.0
 */
export * as ConnectionState from "./ConnectionState.js"
/**
 * @since 0.2.0
 */
export * as EraCache from "./EraCache.js"
/**
 * @since 0.2.0
 */
export * as Facade from "./Facade.js"
/**
 * @since 0.1.0
 */
export * as InMemory from "./InMemory.js"
/**
 * @since 0.2.0
 */
export * as McpBundle from "./McpBundle.js"
/**
 * @since 0.1.0
 */
export * as McpClient from "./McpClient.js"
/**
 * @since 0.1.0
 */
export * as McpError from "./McpError.js"
/**
 * @since 0.1.0
 */
export * as McpSchema from "./McpSchema.js"
/**
 * @since 0.1.0
 */
export * as Protocol from "./Protocol.js"
/**
 * @since 0.2.0
 */
export * as ResultLimits from "./ResultLimits.js"
/**
 * @since 0.2.0
 */
export * as Resume from "./Resume.js"
/**
 * @since 0.1.0
 */
export * as RpcPeer from "./RpcPeer.js"
/**
 * @since 0.1.0
 */
export * as ServerConfig from "./ServerConfig.js"
/**
 * @since 0.1.0
 */
export * as ServerConnection from "./ServerConnection.js"
/**
 * @since 0.1.0
 */
export * as Stdio from "./Stdio.js"
/**
 * @since 0.1.0
 */
export * as Transport from "./Transport.js"
/**
 * @since 0.1.0
 */
export * as McpConfig from "./McpConfig.js"
/**
 * @since 0.1.0
 */
export * as Target from "./Target.js"
/**
 * @since 0.1.0
 */
export * as Http from "./Http.js"
/**
 * @since 0.1.0
 */
export * as Sse from "./Sse.js"
/**
 * @since 0.1.0
 */
export * as StreamableHttp from "./StreamableHttp.js"
/**
 * @since 0.1.0
 */
export * as Handlers from "./Handlers.js"
/**
 * @since 0.1.0
 */
export * as HeaderParams from "./HeaderParams.js"
/**
 * @since 0.1.0
 */
export * as McpAuth from "./McpAuth.js"
/**
 * @since 0.1.0
 */
export * as Subscription from "./Subscription.js"
/**
 * @since 0.1.0
 */
export * as Task from "./Task.js"
/**
 * @since 0.1.0
 */
export * as ToolFormats from "./ToolFormats.js"
/**
 * @since 0.1.0
 */
export * as Deprecations from "./Deprecations.js"
/**
 * @since 0.1.0
 */
export * as JsonSchema from "./JsonSchema.js"
/**
 * @since 0.1.0
 */
export * as OAuth from "./OAuth.js"
/**
 * @since 0.1.0
 */
export * as Telemetry from "./Telemetry.js"
/**
 * @since 0.2.0
 */
export * as ToolPin from "./ToolPin.js"
