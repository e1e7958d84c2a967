/**
 * The facade's drift pinning (`ConnectOptions.pin`): the lock, given or read from its file, set
 * as each server's pin by name.
 *
 * @internal
 */
import { run } from "@mcp-effect/client/internal/facade/run"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import * as ToolPin from "@mcp-effect/client/ToolPin"
import * as Effect from "effect/Effect"
import type { ConnectOptions } from "./types.js"

/** `servers` pinned by `pin`'s lock; rejects with a `ConfigError` when its file cannot be used. */
export const pinned = async <R>(
  servers: ReadonlyArray<ServerConfig<R>>,
  pin: NonNullable<ConnectOptions["pin"]>
): Promise<ReadonlyArray<ServerConfig<R>>> => {
  const lock = typeof pin.lock !== "string" ? pin.lock : await readLock(pin.lock)
  return ToolPin.applyLock(servers, lock, pin.mode)
}

// Loaded here: `connect` without a lock file never pays for the file system layer.
const readLock = async (path: string) => {
  const NodeFileSystem = await import("@effect/platform-node/NodeFileSystem")
  return run(Effect.provide(ToolPin.readLock(path), NodeFileSystem.layer))
}
