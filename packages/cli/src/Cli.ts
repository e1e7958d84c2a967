/**
 * The `mcp-effect` command: inspect and call MCP servers from a terminal.
 *
 *   mcp-effect [demo] [--target <target>]...
 *   mcp-effect tools | prompts | resources [--target <target>]... [--server <name>]
 *   mcp-effect call <tool> --args '{"message":"hi"}' [--target <target>]... [--server <name>]
 *   mcp-effect get-prompt <name> --args '{"name":"Ada"}' | read <uri>
 *   mcp-effect tools --target https://example.com/mcp --oauth [--oauth-storage <file>] [--no-browser]
 *
 * A target is a URL, a command line (`npx -y @modelcontextprotocol/server-everything stdio`),
 * or `stdio://command args`; without one, commands talk to the embedded demo server. With
 * `--oauth`, URL targets that challenge run the OAuth browser flow; tokens are kept in a 0600
 * file under the user's configuration directory (or `--oauth-storage`).
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import type * as CliApp from "@effect/cli/CliApp"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as McpClient from "@mcp-effect/client/McpClient"
import * as McpError from "@mcp-effect/client/McpError"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import * as Target from "@mcp-effect/client/Target"
import * as NodeOAuth from "@mcp-effect/node/NodeOAuth"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Demo from "./Demo.js"
import * as format from "./internal/format.js"
import { withProgress } from "./internal/progress.js"
import { version } from "./version.js"

/**
 * The command line could not be used: `--args` that is not a JSON object, for instance.
 *
 * @since 0.1.0
 * @category errors
 */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/**
 * A tool answered with `isError: true`; its content was printed, and the command exits with 1.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolResultError extends Data.TaggedError("ToolResultError")<{
  readonly tool: string
  readonly message: string
}> {}

/**
 * Everything a command can fail with; each is printed as `error: <_tag>: <message>`.
 *
 * @since 0.1.0
 * @category models
 */
export type CliError = McpError.McpError | UsageError | ToolResultError

/**
 * What the commands need from the platform (provided by `NodeMcpClient.platform`).
 *
 * @since 0.1.0
 * @category models
 */
export type Environment = CliApp.CliApp.Environment | Target.Requirements

/**
 * The options every command takes.
 *
 * @since 0.1.0
 * @category models
 */
export interface CommonOptions {
  readonly target: ReadonlyArray<string>
  readonly server: Option.Option<string>
  readonly timeout: Option.Option<number>
  readonly verbose: boolean
  readonly oauth: boolean
  readonly oauthStorage: Option.Option<string>
  readonly noBrowser: boolean
}

const common = {
  target: Options.text("target").pipe(
    Options.withAlias("t"),
    Options.withDescription(
      "server to connect to: a URL, a command line or stdio://…; repeat for several servers " +
        "(default: the embedded demo server)"
    ),
    Options.repeated
  ),
  server: Options.text("server").pipe(
    Options.withAlias("s"),
    Options.withDescription("route the request to the server of this name"),
    Options.optional
  ),
  timeout: Options.integer("timeout").pipe(
    Options.withDescription("request timeout in milliseconds (default: the server's read timeout)"),
    Options.optional
  ),
  verbose: Options.boolean("verbose").pipe(
    Options.withAlias("v"),
    Options.withDescription("log debug lines (server stderr, protocol details) to stderr")
  ),
  oauth: Options.boolean("oauth").pipe(
    Options.withDescription(
      "authorize with OAuth when a URL target asks for it: the authorization URL is printed and " +
        "opened in the browser, a loopback server receives the callback"
    )
  ),
  oauthStorage: Options.file("oauth-storage").pipe(
    Options.withDescription("with --oauth: the token file (default: mcp-effect/oauth.json in the user's config dir)"),
    Options.optional
  ),
  noBrowser: Options.boolean("no-browser").pipe(
    Options.withDescription("with --oauth: print the authorization URL without opening a browser")
  )
}

/**
 * OAuth for the URL targets, from `--oauth`, `--oauth-storage` and `--no-browser`.
 *
 * @since 0.1.0
 * @category models
 */
export interface OAuthOptions {
  readonly storage?: string | undefined
  readonly openBrowser?: boolean | undefined
}

const jsonArgs = Options.text("args").pipe(
  Options.withAlias("a"),
  Options.withDescription("arguments as a JSON object"),
  Options.withDefault("{}")
)

const uniqueName = (base: string, taken: Set<string>): string => {
  if (!taken.has(base)) return base
  let n = 2
  while (taken.has(`${base}-${n}`)) n++
  return `${base}-${n}`
}

/**
 * Server configurations for the targets (names made unique: `node`, `node-2`, …), or the
 * embedded demo server when there is no target.
 *
 * @since 0.1.0
 * @category constructors
 */
export const configs = (
  targets: ReadonlyArray<string>,
  oauth?: OAuthOptions | undefined
): Effect.Effect<ReadonlyArray<ServerConfig<Target.Requirements>>, McpError.ConfigError, HttpClient.HttpClient> =>
  targets.length === 0
    ? oauth === undefined
      ? Effect.map(Demo.server, (config) => [config])
      : Effect.fail(new McpError.ConfigError({ message: "--oauth needs a URL --target" }))
    : Effect.gen(function*() {
      if (oauth !== undefined && !targets.some((target) => Target.detect(target).transport !== "stdio")) {
        return yield* new McpError.ConfigError({ message: "--oauth applies to URL targets only" })
      }
      const taken = new Set<string>()
      const result: Array<ServerConfig<Target.Requirements>> = []
      for (const target of targets) {
        const detected = Target.detect(target)
        const auth = oauth === undefined || detected.transport === "stdio"
          ? undefined
          : yield* NodeOAuth.fromSettings(detected.url, { storage: oauth.storage, openBrowser: oauth.openBrowser })
        const config = yield* Target.toConfig(target, { auth })
        const name = uniqueName(config.name, taken)
        taken.add(name)
        result.push(name === config.name ? config : yield* Target.toConfig(target, { name, auth }))
      }
      return result
    })

/**
 * Connects a client to the targets (or the demo server) in the current scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = (
  targets: ReadonlyArray<string>,
  oauth?: OAuthOptions | undefined
): Effect.Effect<
  McpClient.Service,
  McpError.ConnectError | McpError.ConfigError,
  Scope.Scope | Target.Requirements
> => Effect.flatMap(configs(targets, oauth), (servers) => McpClient.make({ servers }))

interface Context {
  readonly client: McpClient.Service
  readonly server: string | undefined
  readonly timeout: Duration.Duration | undefined
  /** Whether lines should say which server an item comes from. */
  readonly showServer: boolean
}

/**
 * The root command without its handler: subcommands read its options, so
 * `mcp-effect --target X tools` and `mcp-effect tools --target X` mean the same.
 */
const root = Command.make("mcp-effect", common)

/** Subcommand options win; targets add up. */
const merge = (parent: CommonOptions, own: CommonOptions): CommonOptions => ({
  target: [...parent.target, ...own.target],
  server: Option.orElse(own.server, () => parent.server),
  timeout: Option.orElse(own.timeout, () => parent.timeout),
  verbose: parent.verbose || own.verbose,
  oauth: parent.oauth || own.oauth,
  oauthStorage: Option.orElse(own.oauthStorage, () => parent.oauthStorage),
  noBrowser: parent.noBrowser || own.noBrowser
})

const oauthOf = (options: CommonOptions): OAuthOptions | undefined =>
  options.oauth
    ? { storage: Option.getOrUndefined(options.oauthStorage), openBrowser: !options.noBrowser }
    : undefined

const connected = <A, E>(
  options: CommonOptions,
  body: (context: Context) => Effect.Effect<A, E>
): Effect.Effect<
  A,
  E | McpError.ConnectError | McpError.ConfigError,
  Target.Requirements
> => {
  const program = Effect.scoped(Effect.flatMap(connect(options.target, oauthOf(options)), (client) =>
    body({
      client,
      server: Option.getOrUndefined(options.server),
      timeout: Option.getOrUndefined(Option.map(options.timeout, Duration.millis)),
      showServer: client.servers.length > 1
    })))
  return options.verbose ? Logger.withMinimumLogLevel(program, LogLevel.Debug) : program
}

const withClient = <A, E>(options: CommonOptions, body: (context: Context) => Effect.Effect<A, E>) =>
  Effect.flatMap(root, (parent) => connected(merge(parent, options), body))

const parseArgs = (text: string): Effect.Effect<Record<string, unknown>, UsageError> =>
  Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (error) => new UsageError({ message: `--args is not valid JSON: ${(error as Error).message}` })
  }).pipe(
    Effect.filterOrFail(
      (value): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value),
      () => new UsageError({ message: "--args must be a JSON object, like {\"message\":\"hi\"}" })
    )
  )

// Prompt arguments are strings on the wire; numbers and booleans are accepted for convenience.
const stringArgs = (args: Record<string, unknown>): Effect.Effect<Record<string, string>, UsageError> => {
  const result: Record<string, string> = {}
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === "string") result[key] = value
    else if (typeof value === "number" || typeof value === "boolean") result[key] = String(value)
    else return Effect.fail(new UsageError({ message: `prompt argument "${key}" must be a string` }))
  }
  return Effect.succeed(result)
}

const print = (text: string) => Console.log(text)

const transcript = ({ client }: Context) => Effect.asVoid(Demo.transcript(client))

const demo = Command.make("demo", common, (options) => withClient(options, transcript)).pipe(
  Command.withDescription("walk through tools, progress, prompts, resources, completion and a typed error")
)

const tools = Command.make(
  "tools",
  common,
  (options) =>
    withClient(options, ({ client, server, showServer, timeout }) =>
      Effect.gen(function*() {
        const list = yield* client.listTools({ server, timeout })
        if (list.length === 0) return yield* print("no tools")
        yield* print(list.map((tool) => format.tool(tool, showServer)).join("\n"))
      }))
).pipe(Command.withDescription("list the tools of every server"))

const call = Command.make(
  "call",
  { ...common, tool: Args.text({ name: "tool" }), args: jsonArgs },
  (options) =>
    withClient(options, ({ client, server, timeout }) =>
      Effect.gen(function*() {
        const args = yield* parseArgs(options.args)
        const { result } = yield* withProgress(
          (progress) => Console.error(format.progress(progress)),
          (onProgress) => client.callTool(options.tool, args, { server, timeout, onProgress })
        )
        yield* print(format.callResult(result))
        if (result.isError === true) {
          return yield* new ToolResultError({ tool: options.tool, message: `tool "${options.tool}" reported an error` })
        }
      }))
).pipe(Command.withDescription("call a tool with JSON arguments; progress goes to stderr"))

const prompts = Command.make(
  "prompts",
  common,
  (options) =>
    withClient(options, ({ client, server, showServer, timeout }) =>
      Effect.gen(function*() {
        const list = yield* client.listPrompts({ server, timeout })
        if (list.length === 0) return yield* print("no prompts")
        yield* print(list.map((prompt) => format.prompt(prompt, showServer)).join("\n"))
      }))
).pipe(Command.withDescription("list the prompts of every server"))

const getPrompt = Command.make(
  "get-prompt",
  { ...common, name: Args.text({ name: "name" }), args: jsonArgs },
  (options) =>
    withClient(options, ({ client, server, timeout }) =>
      Effect.gen(function*() {
        const args = yield* Effect.flatMap(parseArgs(options.args), stringArgs)
        const result = yield* client.getPrompt(options.name, args, { server, timeout })
        yield* print(format.promptResult(result))
      }))
).pipe(Command.withDescription("render a prompt with JSON arguments"))

const isMethodNotFound = (error: unknown) => error instanceof McpError.ServerError && error.code === -32601

const resources = Command.make(
  "resources",
  common,
  (options) =>
    withClient(options, ({ client, server, showServer, timeout }) =>
      Effect.gen(function*() {
        const list = yield* client.listResources({ server, timeout })
        // Templates are optional for a server; "method not found" just means there are none.
        const templates = yield* client.listResourceTemplates({ server, timeout }).pipe(
          Effect.catchIf(isMethodNotFound, () => Effect.succeed([]))
        )
        const lines = [
          ...(list.length === 0 ? ["no resources"] : list.map((r) => format.resource(r, showServer))),
          ...(templates.length === 0
            ? []
            : ["templates:", ...templates.map((t) => format.indent(format.resourceTemplate(t, showServer)))])
        ]
        yield* print(lines.join("\n"))
      }))
).pipe(Command.withDescription("list the resources and resource templates of every server"))

const listen = Command.make(
  "listen",
  {
    ...common,
    tools: Options.boolean("tools").pipe(Options.withDescription("tool list changes")),
    prompts: Options.boolean("prompts").pipe(Options.withDescription("prompt list changes")),
    resources: Options.boolean("resources").pipe(Options.withDescription("resource list changes")),
    resource: Options.text("resource").pipe(
      Options.withDescription("updates of this resource (repeatable)"),
      Options.repeated
    ),
    count: Options.integer("count").pipe(
      Options.withDescription("stop after this many notifications (default: until interrupted)"),
      Options.optional
    )
  },
  (options) =>
    withClient(options, ({ client, server }) =>
      Effect.gen(function*() {
        const filter = {
          ...(options.tools ? { toolsListChanged: true } : {}),
          ...(options.prompts ? { promptsListChanged: true } : {}),
          ...(options.resources ? { resourcesListChanged: true } : {}),
          ...(options.resource.length > 0 ? { resourceSubscriptions: options.resource } : {})
        }
        if (Object.keys(filter).length === 0) {
          return yield* new UsageError({
            message: "name what to listen for: --tools, --prompts, --resources or --resource URI"
          })
        }
        const subscription = yield* client.listen(filter, { server })
        if (subscription.unsupported.length > 0) {
          yield* Console.error(`not granted by the server: ${subscription.unsupported.join(", ")}`)
        }
        yield* Console.error(`listening to ${subscription.server}`)
        const notifications = Option.match(options.count, {
          onNone: () => subscription.notifications,
          onSome: (count) => Stream.take(subscription.notifications, count)
        })
        yield* Stream.runForEach(notifications, (notification) => print(format.notification(notification)))
      }).pipe(Effect.scoped))
).pipe(Command.withDescription("open a subscriptions/listen stream (2026-07-28) and print its notifications"))

const read = Command.make(
  "read",
  { ...common, uri: Args.text({ name: "uri" }) },
  (options) =>
    withClient(options, ({ client, server, timeout }) =>
      Effect.gen(function*() {
        const result = yield* client.readResource(options.uri, { server, timeout })
        yield* print(result.contents.map(format.resourceContents).join("\n"))
      }))
).pipe(Command.withDescription("read a resource"))

/**
 * The `mcp-effect` command; without a subcommand it runs `demo`.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = root.pipe(
  Command.withHandler((options) => connected(options, transcript)),
  Command.withDescription("an MCP client on Effect; without a subcommand, runs the demo"),
  Command.withSubcommands([tools, call, prompts, getPrompt, resources, read, listen, demo])
)

const isReported = (error: unknown): error is CliError =>
  McpError.isMcpError(error) || error instanceof UsageError || error instanceof ToolResultError

/**
 * Prints a failure for a person: `error: <_tag>: <message>` for our typed errors, nothing for
 * command-line errors (already printed with the usage), the full cause for anything else.
 *
 * @since 0.1.0
 * @category errors
 */
export const report = <E>(cause: Cause.Cause<E>): Effect.Effect<void> => {
  if (Cause.isInterruptedOnly(cause)) return Effect.void
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error: unknown = failure.value
    if (isReported(error)) return Console.error(`error: ${error._tag}: ${format.clean(error.message)}`)
    if (ValidationError.isValidationError(error)) return Effect.void
  }
  return Console.error(Cause.pretty(cause))
}

// Log lines go to stderr so they never mix with a command's output.
const stderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.stringLogger))

/**
 * Runs the command line (`process.argv`: executable, script, then arguments). Failures are
 * reported on stderr (see {@link report}) and fail the effect, so the process exits with 1.
 * The minimum log level is `Warning`; `--verbose` lowers it to `Debug`.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (
  argv: ReadonlyArray<string>
): Effect.Effect<void, CliError | ValidationError.ValidationError, Environment> =>
  Command.run(command, { name: "mcp-effect", version })(argv).pipe(
    Effect.tapErrorCause(report),
    Logger.withMinimumLogLevel(LogLevel.Warning),
    Effect.provide(stderrLogger)
  )
