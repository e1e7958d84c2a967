/**
 * @since 0.1.0
 */
export * as FakeServer from "./FakeServer.js"
/**
 * @since 0.1.0
 */
export * as Scenarios from "./Scenarios.js"
/**
 * @since 0.1.0
 */
export * as FakeHttpServer from "./FakeHttpServer.js"
/**
 * @since 0.1.0
 */
export * as FakeOAuthServer from "./FakeOAuthServer.js"
