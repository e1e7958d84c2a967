/**
 * The Node facade's client: the shared facade (`Facade.open`) over a client layer on Node's
 * platform (undici's global dispatcher, process spawning, the shared JSON Schema worker, the
 * era file).
 *
 * @internal
 */
import type * as EraCache from "@mcp-effect/client/EraCache"
import * as Facade from "@mcp-effect/client/Facade"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import * as LogLevel from "effect/LogLevel"
import * as NodeEraCache from "../../NodeEraCache.js"
import * as internalPlatform from "../platform.js"
import { networkOf } from "./configs.js"
import { pinned } from "./pin.js"
import type { Client, ConnectOptions } from "./types.js"

/** Connects to `servers` and resolves with the client once every one of them is connected. */
export const open = async (
  servers: ReadonlyArray<ServerConfig<internalPlatform.Services>>,
  options: ConnectOptions
): Promise<Client> =>
  Facade.open(
    options.pin === undefined ? servers : await pinned(servers, options.pin),
    options,
    // Undici's global dispatcher: connections to a server are reused across connect() calls (and
    // one JSON Schema worker serves them all).
    (clientOptions) =>
      internalPlatform.clientLayer(
        clientOptions,
        "global",
        LogLevel.fromLiteral(options.logLevel ?? "Warning"),
        networkOf(options),
        eraCacheOf(options),
        options.cacheStore
      )
  )

// One cache per file for the process: a connect() after the first parses the file again only
// when it changed (the cache keeps what it last read or wrote, by modification time and size),
// and the writes of connect() calls in flight together queue under one lock.
const eraCaches = new Map<string, EraCache.Service>()

// Only `auto` detects an era; `false` turns the memory off.
const eraCacheOf = (options: ConnectOptions): EraCache.Service | undefined => {
  if (options.eraCache === false || (options.protocol !== undefined && options.protocol !== "auto")) return undefined
  const file = options.eraCache ?? NodeEraCache.defaultPath()
  let cache = eraCaches.get(file)
  if (cache === undefined) {
    cache = NodeEraCache.make(file)
    eraCaches.set(file, cache)
  }
  return cache
}
