/**
 * Drift pinning on the command line: `tools --pin [FILE]` writes the lock of the servers listed
 * (keeping the entries of the servers not listed); `--pinned FILE` pins every server the lock
 * names (`--strict`: strict mode), and warns of a server it does not name.
 *
 * @internal
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type { ConfigError } from "@mcp-effect/client/McpError"
import type * as McpSchema from "@mcp-effect/client/McpSchema"
import * as ToolPin from "@mcp-effect/client/ToolPin"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UsageError } from "./errors.js"
import type { Server } from "./servers.js"

/** What the command line says of pinning. @internal */
export interface PinOptions {
  readonly pinned: Option.Option<string>
  readonly strict: boolean
}

/** `servers` with the pins of `--pinned`'s lock; a server the lock does not name is warned of. @internal */
export const apply = (
  servers: ReadonlyArray<Server>,
  options: PinOptions
): Effect.Effect<ReadonlyArray<Server>, ConfigError, FileSystem.FileSystem> =>
  Option.match(options.pinned, {
    onNone: () => Effect.succeed(servers),
    onSome: (file) =>
      Effect.flatMap(ToolPin.readLock(file), (lock) =>
        Effect.forEach(servers, (server) => {
          const pin = ToolPin.pinOf(lock, server.config.name, options.strict ? "strict" : "warn")
          return pin === undefined
            ? Effect.as(Effect.logWarning(`${server.config.name}: not in ${file}: its tools are not pinned`), server)
            : Effect.succeed({ ...server, config: { ...server.config, pin } })
        }))
  })

/**
 * Writes the lock of `tools` to `file`: the servers listed replace their entries, the others
 * an existing file holds are kept (so `--server NAME` re-pins one server). @internal
 */
export const write = (
  file: string,
  tools: ReadonlyArray<McpSchema.Tool & { readonly server: string }>,
  listed: ReadonlyArray<string>
): Effect.Effect<string, ConfigError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fresh = yield* ToolPin.lock(tools)
    const existing = yield* Effect.orElseSucceed(
      Effect.asSome(ToolPin.readLock(file)),
      () => Option.none<ToolPin.LockFile>()
    )
    const kept = Option.match(existing, {
      onNone: () => ({}),
      onSome: (lock) => Object.fromEntries(Object.entries(lock.servers).filter(([name]) => !listed.includes(name)))
    })
    // A listed server without tools is pinned too: to none.
    const listedEntries = Object.fromEntries(listed.map((name) => [name, fresh.servers[name] ?? {}]))
    const servers = Object.fromEntries(
      Object.entries({ ...kept, ...listedEntries }).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    )
    yield* ToolPin.writeLock(file, { version: 1, servers })
    return `wrote ${file}: ${tools.length} tool${tools.length === 1 ? "" : "s"} of ${listed.length} server${
      listed.length === 1 ? "" : "s"
    }`
  })

/**
 * The lock file `tools` writes: `FILE`, or `mcp-lock.json` with `--pin` alone; a `FILE` without
 * `--pin`, or `--pin` with `--pinned`, is a usage error (a lock is written from the tools as the
 * servers list them). @internal
 */
export const lockFileOf = (
  options: PinOptions & { readonly pin: boolean; readonly file: Option.Option<string> }
): Effect.Effect<string | undefined, UsageError> => {
  if (!options.pin) {
    return Option.isSome(options.file)
      ? Effect.fail(new UsageError({ message: `unexpected argument ${options.file.value} (did you mean --pin FILE?)` }))
      : Effect.succeed(undefined)
  }
  if (Option.isSome(options.pinned)) {
    return Effect.fail(
      new UsageError({ message: "--pin writes a lock from the tools as listed: it takes no --pinned" })
    )
  }
  return Effect.succeed(Option.getOrElse(options.file, () => ToolPin.defaultLockFile))
}
