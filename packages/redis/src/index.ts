/**
 * @since 0.2.0
 */
export * as Redis from "./Redis.js"
/**
 * @since 0.2.0
 */
export * as RedisCacheStore from "./RedisCacheStore.js"
/**
 * @since 0.2.0
 */
export * as RedisKeyValueStore from "./RedisKeyValueStore.js"
/**
 * @since 0.2.0
 */
export * as RedisOAuth from "./RedisOAuth.js"
