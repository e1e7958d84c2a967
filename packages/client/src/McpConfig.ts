/**
 * The `mcpServers` JSON file (the format Claude Desktop and most hosts use):
 *
 * ```json
 * { "mcpServers": { "files": { "type": "stdio", "command": "npx", "args": ["-y", "…"] } } }
 * ```
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Http from "./Http.js"
import { ConfigError } from "./McpError.js"
import type { ServerConfig } from "./ServerConfig.js"
import * as Sse from "./Sse.js"
import * as Stdio from "./Stdio.js"
import * as StreamableHttp from "./StreamableHttp.js"
import type { Requirements } from "./Target.js"

const StdioEntry = Schema.Struct({
  type: Schema.optional(Schema.Literal("stdio")),
  command: Schema.String,
  args: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  cwd: Schema.optional(Schema.String),
  readTimeout: Schema.optional(Schema.Number)
})

const HttpEntry = Schema.Struct({
  type: Schema.Literal("streamable_http", "sse", "http"),
  url: Schema.String,
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  readTimeout: Schema.optional(Schema.Number),
  retries: Schema.optional(Schema.Number),
  endpoint: Schema.optional(Schema.String)
})

const File = Schema.Struct({
  mcpServers: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

/**
 * The server configurations of a parsed `mcpServers` document, in file order.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (
  document: unknown
): Effect.Effect<ReadonlyArray<ServerConfig<Requirements>>, ConfigError> =>
  Effect.gen(function*() {
    const file = yield* Schema.decodeUnknown(File)(document).pipe(
      Effect.mapError(() => new ConfigError({ message: "the configuration has no \"mcpServers\" object" }))
    )
    const configs: Array<ServerConfig<Requirements>> = []
    for (const [name, entry] of Object.entries(file.mcpServers)) {
      if (Schema.is(HttpEntry)(entry)) {
        const common = {
          name,
          headers: entry.headers,
          retries: entry.retries,
          readTimeout: entry.readTimeout === undefined ? undefined : entry.readTimeout * 1000
        }
        configs.push(
          entry.type === "sse"
            ? Sse.config({ ...common, url: entry.url })
            : entry.type === "http"
            ? Http.config({ ...common, baseUrl: entry.url, endpoint: entry.endpoint })
            : StreamableHttp.config({ ...common, url: entry.url })
        )
        continue
      }
      const stdio = yield* Schema.decodeUnknown(StdioEntry)(entry).pipe(
        Effect.mapError((error) => new ConfigError({ message: `server "${name}": ${error.message}` }))
      )
      configs.push(Stdio.config({
        name,
        command: stdio.command,
        args: stdio.args,
        env: stdio.env,
        cwd: stdio.cwd,
        readTimeout: stdio.readTimeout === undefined ? undefined : stdio.readTimeout * 1000
      }))
    }
    return configs
  })

/**
 * Reads and parses a configuration file.
 *
 * @since 0.1.0
 * @category constructors
 */
export const load = (
  path: string
): Effect.Effect<ReadonlyArray<ServerConfig<Requirements>>, ConfigError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((error) => new ConfigError({ message: `cannot read ${path}: ${error.message}` }))
    )
    const document = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: () => new ConfigError({ message: `${path} is not valid JSON` })
    })
    return yield* parse(document)
  })
