/**
 * The `mcp-effect` command: inspect and call MCP servers from a terminal.
 *
 *   mcp-effect servers | tools | prompts | resources [--config FILE|HOST] [--target T]... [--server NAME] [--json]
 *   mcp-effect call [server.]tool key=value ... [--args JSON] [--allow-tool-errors]
 *                   [--max-result-chars N] [--max-result-bytes N]
 *   mcp-effect get-prompt NAME key=value ... | read URI | listen --tools ... | demo
 *   mcp-effect doctor [SERVER|TARGET] [--json]
 *
 * Servers come from `--target`s (a URL, a command line, `stdio://…`) and `--config` (a file —
 * any host's format, a registry `server.json` or an `.mcpb` bundle — or a host: `claude`,
 * `claude-code`, `cursor`, `vscode`, `windsurf`, `codex`, `opencode`, `gemini`, `zed`); without either, from
 * `$MCP_CONFIG`, `./.mcp.json` or `./mcp.json`; without a configuration, from the embedded demo
 * server, which stderr says. Exit status: 0 ok, 1 error, 2 usage, 130 interrupted.
 * `docs/cli.md` has the details.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import type * as CliApp from "@effect/cli/CliApp"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type * as ValidationError from "@effect/cli/ValidationError"
import * as FileSystem from "@effect/platform/FileSystem"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as ConnectionState from "@mcp-effect/client/ConnectionState"
import * as EraCache from "@mcp-effect/client/EraCache"
import * as McpClient from "@mcp-effect/client/McpClient"
import type * as McpError from "@mcp-effect/client/McpError"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import type * as Target from "@mcp-effect/client/Target"
import * as NodeEraCache from "@mcp-effect/node/NodeEraCache"
import * as UndiciHttpClient from "@mcp-effect/node/UndiciHttpClient"
import type * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Demo from "./Demo.js"
import * as Arguments from "./internal/arguments.js"
import * as Diagnostics from "./internal/diagnostics.js"
import * as Doctor from "./internal/doctor.js"
import * as errors from "./internal/errors.js"
import * as format from "./internal/format.js"
import * as Help from "./internal/help.js"
import * as Listen from "./internal/listen.js"
import * as Output from "./internal/output.js"
import * as Pin from "./internal/pin.js"
import { withProgress } from "./internal/progress.js"
import * as Servers from "./internal/servers.js"
import * as Status from "./internal/status.js"
import { version } from "./version.js"

/**
 * The command line could not be used: `--args` that is not a JSON object, for instance. Exits
 * with 2.
 *
 * @since 0.1.0
 * @category errors
 */
export const UsageError: typeof errors.UsageError = errors.UsageError

/**
 * @since 0.1.0
 * @category errors
 */
export type UsageError = errors.UsageError

/**
 * A tool answered with `isError: true`; its content was printed, and the command exits with 1
 * (unless `--allow-tool-errors`).
 *
 * @since 0.1.0
 * @category errors
 */
export const ToolResultError: typeof errors.ToolResultError = errors.ToolResultError

/**
 * @since 0.1.0
 * @category errors
 */
export type ToolResultError = errors.ToolResultError

/**
 * Everything a command can fail with; each is printed as `error: <_tag>: <message>`.
 *
 * @since 0.1.0
 * @category models
 */
export type CliError = McpError.McpError | UsageError | ToolResultError | errors.UnavailableError

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
  readonly config: Option.Option<string>
  readonly server: Option.Option<string>
  readonly json: boolean
  readonly timeout: Option.Option<number>
  readonly verbose: boolean
  readonly oauth: boolean
  readonly oauthStorage: Option.Option<string>
  readonly noBrowser: boolean
  /** `--proxy URL|none`: overrides `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY`. */
  readonly proxy: Option.Option<string>
  /** `--no-era-cache`: probe each server's era on every connect instead of remembering it. */
  readonly noEraCache: boolean
  /** `--env K=V` words, for every stdio server. */
  readonly env: ReadonlyArray<string>
  readonly inheritEnv: boolean
  /** `--user-config KEY=VALUE` words: the answers to an `.mcpb` bundle's questions. */
  readonly userConfig: ReadonlyArray<string>
  /** `--pinned FILE`: a lock file (`tools --pin`) whose fingerprints pin the servers it names. */
  readonly pinned: Option.Option<string>
  /** `--strict`: with `--pinned`, a tool that does not match its pin is hidden and refused. */
  readonly strict: boolean
}

/**
 * OAuth for the URL targets, from `--oauth`, `--oauth-storage` and `--no-browser`.
 *
 * @since 0.1.0
 * @category models
 */
export type OAuthOptions = Servers.OAuthOptions

// Descriptions are for @effect/cli's completions; `--help` prints internal/help.ts.
const common = {
  target: Options.text("target").pipe(
    Options.withAlias("t"),
    Options.withDescription("[NAME=] a URL, a command line or stdio://…; repeatable"),
    Options.repeated
  ),
  config: Options.text("config").pipe(
    Options.withAlias("c"),
    Options.withDescription("a configuration file, or a host: claude, claude-code, cursor, vscode, windsurf"),
    Options.optional
  ),
  server: Options.text("server").pipe(
    Options.withAlias("s"),
    Options.withDescription("use only the server of this name"),
    Options.optional
  ),
  json: Options.boolean("json").pipe(Options.withDescription("one JSON document on stdout")),
  timeout: Options.integer("timeout").pipe(Options.withDescription("request timeout in ms"), Options.optional),
  verbose: Options.boolean("verbose").pipe(Options.withAlias("v"), Options.withDescription("debug lines on stderr")),
  oauth: Options.boolean("oauth").pipe(Options.withDescription("sign in with OAuth when a URL target asks")),
  oauthStorage: Options.file("oauth-storage").pipe(Options.withDescription("the token file"), Options.optional),
  noBrowser: Options.boolean("no-browser").pipe(Options.withDescription("print the authorization URL only")),
  proxy: Options.text("proxy").pipe(Options.withDescription("an HTTP proxy URL, or none"), Options.optional),
  noEraCache: Options.boolean("no-era-cache").pipe(Options.withDescription("probe each server's era on every connect")),
  env: Options.text("env").pipe(
    Options.withDescription("KEY=VALUE for the environment of stdio servers; repeatable"),
    Options.repeated
  ),
  inheritEnv: Options.boolean("inherit-env").pipe(
    Options.withDescription("stdio servers get this shell's whole environment")
  ),
  userConfig: Options.text("user-config").pipe(
    Options.withDescription("KEY=VALUE answering an .mcpb bundle's user_config; repeatable"),
    Options.repeated
  ),
  pinned: Options.text("pinned").pipe(
    Options.withDescription("a lock file (tools --pin) pinning the servers' tools"),
    Options.optional
  ),
  strict: Options.boolean("strict").pipe(Options.withDescription("with --pinned: refuse tools that drifted"))
}

const jsonArgs = Options.text("args").pipe(
  Options.withAlias("a"),
  Options.withDescription("arguments as a JSON object"),
  Options.withDefault("{}")
)

const keyValues = Args.text({ name: "key=value" }).pipe(Args.repeated)

/**
 * Server configurations for the targets (`NAME=TARGET` names one; other names come from what runs,
 * made unique: `server-everything`, `server-everything-2`, …), or the
 * embedded demo server when there is no target.
 *
 * @since 0.1.0
 * @category constructors
 */
export const configs = (
  targets: ReadonlyArray<string>,
  oauth?: OAuthOptions | undefined
): Effect.Effect<
  ReadonlyArray<ServerConfig<Target.Requirements>>,
  McpError.ConfigError | UsageError,
  HttpClient.HttpClient
> =>
  targets.length === 0 && oauth === undefined
    ? Effect.map(Demo.server, (config) => [config])
    : Effect.map(Servers.fromTargets(targets, oauth), (servers) => servers.map((server) => server.config))

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
  McpError.ConnectError | McpError.ConfigError | UsageError,
  Scope.Scope | Target.Requirements
> => Effect.flatMap(configs(targets, oauth), (servers) => McpClient.make({ servers }))

interface Context {
  readonly client: McpClient.Service
  /** The server named by `--server` or by `server.tool`. */
  readonly server: string | undefined
  /** The tool of `server.tool`. */
  readonly tool: string
  readonly timeout: Duration.Duration | undefined
  /** Whether lines should say which server an item comes from. */
  readonly showServer: boolean
  readonly mode: Output.Mode
}

/**
 * The root command without its handler: subcommands read its options, so
 * `mcp-effect --target X tools` and `mcp-effect tools --target X` mean the same.
 */
const root = Command.make("mcp-effect", common)

/** Subcommand options win; targets add up. */
const merge = (parent: CommonOptions, own: CommonOptions): CommonOptions => ({
  target: [...parent.target, ...own.target],
  config: Option.orElse(own.config, () => parent.config),
  server: Option.orElse(own.server, () => parent.server),
  json: parent.json || own.json,
  timeout: Option.orElse(own.timeout, () => parent.timeout),
  verbose: parent.verbose || own.verbose,
  oauth: parent.oauth || own.oauth,
  oauthStorage: Option.orElse(own.oauthStorage, () => parent.oauthStorage),
  noBrowser: parent.noBrowser || own.noBrowser,
  proxy: Option.orElse(own.proxy, () => parent.proxy),
  noEraCache: parent.noEraCache || own.noEraCache,
  env: [...parent.env, ...own.env],
  inheritEnv: parent.inheritEnv || own.inheritEnv,
  userConfig: [...parent.userConfig, ...own.userConfig],
  pinned: Option.orElse(own.pinned, () => parent.pinned),
  strict: parent.strict || own.strict
})

const oauthOf = (options: CommonOptions): OAuthOptions | undefined =>
  options.oauth
    ? { storage: Option.getOrUndefined(options.oauthStorage), openBrowser: !options.noBrowser }
    : undefined

const timeoutOf = (options: CommonOptions) => Option.getOrUndefined(Option.map(options.timeout, Duration.millis))

const verbosely = <A, E, R>(options: CommonOptions, effect: Effect.Effect<A, E, R>) =>
  options.verbose ? Logger.withMinimumLogLevel(effect, LogLevel.Debug) : effect

/** `--proxy`'s HTTP client, for the servers and their OAuth requests (without it: the platform's). */
const withProxy = <A, E, R>(options: CommonOptions, effect: Effect.Effect<A, E, R>) =>
  Option.match(options.proxy, {
    onNone: () => effect,
    onSome: (proxy) => Effect.provide(effect, UndiciHttpClient.layerWith({ proxy: proxy === "none" ? false : proxy }))
  })

/** The servers of the command line (`lookup`: look for a configuration file when none is named). */
const resolved = <A, E, R>(
  options: CommonOptions,
  lookup: boolean,
  body: (servers: Servers.Servers, session: Diagnostics.Run) => Effect.Effect<A, E, R>
) =>
  withProxy(
    options,
    Effect.gen(function*() {
      const session = yield* Diagnostics.Session
      const servers = yield* Servers.resolve({
        targets: options.target,
        config: Option.getOrUndefined(options.config),
        oauth: oauthOf(options),
        environment: { env: yield* Arguments.environment(options.env), inheritEnv: options.inheritEnv },
        userConfig: options.userConfig,
        lookup
      })
      session.diagnostics.setServers(servers.servers)
      if (lookup) yield* Servers.noteDemo(servers)
      const run = body(servers, session)
      // The era of each server is remembered beside the OAuth tokens (`protocol: "auto"` probes once).
      return yield* options.noEraCache
        ? run
        : Effect.provideService(run, EraCache.EraCache, NodeEraCache.make(NodeEraCache.defaultPath()))
    })
  )

/** Connects the servers a command needs: `--server`'s, `server.`'s of `toolWord`, or all. */
const connected = <A, E>(
  options: CommonOptions,
  body: (context: Context) => Effect.Effect<A, E>,
  toolWord?: string
) =>
  verbosely(
    options,
    resolved(options, true, (servers, session) =>
      Effect.scoped(Effect.gen(function*() {
        const named = Option.getOrUndefined(options.server)
        const route = named !== undefined || toolWord === undefined
          ? { server: named, tool: toolWord ?? "" }
          : Servers.splitTool(toolWord, servers)
        const selected = yield* Servers.select(servers, route.server)
        if (selected.length === 0 && servers.servers.length > 0) {
          yield* Effect.logWarning("every server is disabled (--server NAME connects a disabled one)")
        }
        const client = yield* Servers.connect(session.mode, yield* Pin.apply(selected, options))
        return yield* body({
          client,
          ...route,
          timeout: timeoutOf(options),
          showServer: client.servers.length > 1,
          mode: session.mode
        })
      })))
  )

const withClient = <A, E>(options: CommonOptions, body: (context: Context) => Effect.Effect<A, E>, toolWord?: string) =>
  Effect.flatMap(root, (parent) => connected(merge(parent, options), body, toolWord))

const lines = <A>(list: ReadonlyArray<A>, none: string, line: (item: A) => string) =>
  list.length === 0 ? none : list.map(line).join("\n")

const tools = Command.make(
  "tools",
  {
    ...common,
    pin: Options.boolean("pin").pipe(Options.withDescription("write the lock file of the tools listed")),
    file: Args.text({ name: "file" }).pipe(Args.optional)
  },
  (options) =>
    Effect.flatMap(
      Effect.zip(Pin.lockFileOf(options), FileSystem.FileSystem),
      ([lockFile, fs]) =>
        withClient(options, ({ client, mode, server, showServer, timeout }) =>
          Effect.gen(function*() {
            const list = yield* client.listTools({ server, timeout })
            yield* Output.emit(mode, { tools: list }, () => lines(list, "no tools", (t) => format.tool(t, showServer)))
            if (lockFile !== undefined) {
              const listed = server === undefined ? client.servers.map((s) => s.name) : [server]
              yield* Effect.flatMap(
                Effect.provideService(Pin.write(lockFile, list, listed), FileSystem.FileSystem, fs),
                Console.error
              )
            }
          }))
    )
)

const call = Command.make(
  "call",
  {
    ...common,
    tool: Args.text({ name: "tool" }),
    values: keyValues,
    args: jsonArgs,
    allowToolErrors: Options.boolean("allow-tool-errors").pipe(Options.withDescription("exit with 0 on isError")),
    maxResultChars: Options.integer("max-result-chars").pipe(
      Options.withDescription("cut the result's text to this many characters, with a marker"),
      Options.optional
    ),
    maxResultBytes: Options.integer("max-result-bytes").pipe(
      Options.withDescription("cut the result's text to this many UTF-8 bytes, with a marker"),
      Options.optional
    )
  },
  (options) =>
    // The command line is checked before any server starts: a usage error exits with 2 even
    // when a server would not start.
    Effect.flatMap(Arguments.merged(options.args, options.values, true), (args) =>
      withClient(options, ({ client, mode, server, timeout, tool }) =>
        Effect.gen(function*() {
          const { result } = yield* withProgress(
            (progress) =>
              Console.error(format.progress(progress)),
            (onProgress) =>
              client.callTool(tool, args, {
                server,
                timeout,
                onProgress,
                maxResultChars: Option.getOrUndefined(options.maxResultChars),
                maxResultBytes: Option.getOrUndefined(options.maxResultBytes)
              })
          )
          yield* Output.emit(mode, result, () => format.callResult(result))
          if (result.isError === true && !options.allowToolErrors) {
            return yield* new ToolResultError({ tool, message: `tool "${tool}" reported an error (isError)` })
          }
        }), options.tool))
)

const prompts = Command.make(
  "prompts",
  common,
  (options) =>
    withClient(options, ({ client, mode, server, showServer, timeout }) =>
      Effect.gen(function*() {
        const list = yield* client.listPrompts({ server, timeout })
        yield* Output.emit(
          mode,
          { prompts: list },
          () => lines(list, "no prompts", (p) => format.prompt(p, showServer))
        )
      }))
)

const getPrompt = Command.make(
  "get-prompt",
  { ...common, name: Args.text({ name: "name" }), values: keyValues, args: jsonArgs },
  (options) =>
    Effect.flatMap(
      Effect.flatMap(Arguments.merged(options.args, options.values, false), Arguments.stringArgs),
      (args) =>
        withClient(options, ({ client, mode, server, timeout }) =>
          Effect.gen(function*() {
            const result = yield* client.getPrompt(options.name, args, { server, timeout })
            yield* Output.emit(mode, result, () => format.promptResult(result))
          }))
    )
)

const isMethodNotFound = (error: { readonly _tag: string }) =>
  error._tag === "ServerError" && (error as McpError.ServerError).code === -32601

const resources = Command.make(
  "resources",
  common,
  (options) =>
    withClient(options, ({ client, mode, server, showServer, timeout }) =>
      Effect.gen(function*() {
        const list = yield* client.listResources({ server, timeout })
        // Templates are optional for a server; "method not found" just means there are none.
        const templates = yield* client.listResourceTemplates({ server, timeout }).pipe(
          Effect.catchIf(isMethodNotFound, () => Effect.succeed([]))
        )
        yield* Output.emit(mode, { resources: list, resourceTemplates: templates }, () =>
          [
            lines(list, "no resources", (r) => format.resource(r, showServer)),
            ...(templates.length === 0
              ? []
              : ["templates:", ...templates.map((t) => format.indent(format.resourceTemplate(t, showServer)))])
          ].join("\n"))
      }))
)

const listenFilter = (options: {
  readonly tools: boolean
  readonly prompts: boolean
  readonly resources: boolean
  readonly resource: ReadonlyArray<string>
}) => {
  const filter = {
    ...(options.tools ? { toolsListChanged: true } : {}),
    ...(options.prompts ? { promptsListChanged: true } : {}),
    ...(options.resources ? { resourcesListChanged: true } : {}),
    ...(options.resource.length > 0 ? { resourceSubscriptions: options.resource } : {})
  }
  return Object.keys(filter).length > 0 ? Effect.succeed(filter) : Effect.fail(
    new UsageError({ message: "name what to listen for: --tools, --prompts, --resources or --resource URI" })
  )
}

const listen = Command.make(
  "listen",
  {
    ...common,
    tools: Options.boolean("tools").pipe(Options.withDescription("tool list changes")),
    prompts: Options.boolean("prompts").pipe(Options.withDescription("prompt list changes")),
    resources: Options.boolean("resources").pipe(Options.withDescription("resource list changes")),
    resource: Options.text("resource").pipe(Options.withDescription("updates of this resource"), Options.repeated),
    count: Options.integer("count").pipe(Options.withDescription("stop after this many"), Options.optional)
  },
  (options) =>
    Effect.flatMap(
      listenFilter(options),
      (filter) =>
        withClient(options, ({ client, mode, server }) =>
          Effect.gen(function*() {
            const subscription = yield* Listen.listen(client, filter, server)
            if (subscription.unsupported.length > 0) {
              yield* Console.error(`not granted by the server: ${subscription.unsupported.join(", ")}`)
            }
            yield* Console.error(`listening to ${format.clean(subscription.server)}`)
            // The connection's state changes (a server that died and is re-opened), on stderr.
            const connection = yield* client.server(subscription.server)
            yield* Stream.runForEach(
              Stream.drop(connection.state.changes, 1),
              (state) =>
                Console.error(`${format.clean(subscription.server)}: ${format.clean(ConnectionState.describe(state))}`)
            ).pipe(Effect.forkScoped)
            const notifications = Option.match(options.count, {
              onNone: () => subscription.notifications,
              onSome: (count) => Stream.take(subscription.notifications, count)
            })
            // One JSON object per line: a stream has no end to wait for.
            yield* Stream.runForEach(notifications, (n) =>
              Console.log(
                mode.json ? Output.json({ server: subscription.server, ...n }, true) : format.notification(n)
              ))
          }).pipe(Effect.scoped))
    )
)

const read = Command.make(
  "read",
  { ...common, uri: Args.text({ name: "uri" }) },
  (options) =>
    withClient(options, ({ client, mode, server, timeout }) =>
      Effect.gen(function*() {
        const result = yield* client.readResource(options.uri, { server, timeout })
        yield* Output.emit(mode, result, () => result.contents.map(format.resourceContents).join("\n"))
      }))
)

/** The transcript; with `--json` it goes to stderr and its summary is the document. */
const transcript = ({ client, mode }: Context) =>
  mode.json
    ? Effect.flatMap(Output.toStderr(Demo.transcript(client)), (summary) => Console.log(Output.json(summary)))
    : Effect.asVoid(Demo.transcript(client))

const demoWith = (servers: Servers.Servers, session: Diagnostics.Run) =>
  Effect.scoped(
    Effect.flatMap(Servers.connect(session.mode, servers.servers), (client) =>
      transcript({ client, server: undefined, tool: "", timeout: undefined, showServer: false, mode: session.mode }))
  )

const showServers = (options: CommonOptions) => (servers: Servers.Servers, session: Diagnostics.Run) =>
  Effect.gen(function*() {
    const named = Option.getOrUndefined(options.server)
    // The listing shows disabled servers too.
    const selected = named === undefined ? servers.servers : yield* Servers.select(servers, named)
    const statuses = yield* Status.checkAll(selected, timeoutOf(options), session.diagnostics)
    const document = { file: servers.file ?? null, demo: servers.demo, servers: statuses }
    yield* Output.emit(session.mode, document, () => Status.text(statuses, servers))
    const failed = statuses.filter((status) => status.status === "failed").map((status) => status.name)
    if (failed.length > 0) {
      return yield* new errors.UnavailableError({
        servers: failed,
        message: `${failed.length} of ${
          format.plural(statuses.filter((status) => status.status !== "disabled").length, "server")
        } did not answer`
      })
    }
  })

const withRoot = <A, E, R>(options: CommonOptions, body: (options: CommonOptions) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(root, (parent) => {
    const merged = merge(parent, options)
    return verbosely(merged, body(merged))
  })

/** `doctor [SERVER|TARGET]`: every step of a connection, with its timing and a hint on failure. */
const doctor = Command.make(
  "doctor",
  { ...common, subject: Args.text({ name: "server|target" }).pipe(Args.optional) },
  ({ subject, ...options }) =>
    withRoot(options, (merged) =>
      withProxy(
        merged,
        Effect.flatMap(Diagnostics.Session, ({ mode }) =>
          Doctor.run(
            {
              word: Option.getOrUndefined(subject),
              targets: merged.target,
              config: Option.getOrUndefined(merged.config),
              server: Option.getOrUndefined(merged.server)
            },
            Option.getOrUndefined(merged.timeout),
            mode
          ))
      ))
)

// `demo` does not look for a configuration file: the demo is the embedded server's, unless named.
const demo = Command.make("demo", common, (options) => withRoot(options, (o) => resolved(o, false, demoWith)))

const servers = Command.make(
  "servers",
  common,
  (options) => withRoot(options, (o) => resolved(o, true, showServers(o)))
)

/** Without a subcommand: the servers, or the demo's transcript when nothing is configured. */
const bare = (options: CommonOptions) =>
  verbosely(
    options,
    resolved(
      options,
      true,
      (found, session): Effect.Effect<void, CliError, Target.Requirements> =>
        found.demo ? demoWith(found, session) : showServers(options)(found, session)
    )
  )

/**
 * The `mcp-effect` command; without a subcommand it lists the configured servers, or runs the
 * demo when there are none.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = root.pipe(
  Command.withHandler((options) => bare(options)),
  Command.withDescription("inspect and call Model Context Protocol servers"),
  Command.withSubcommands([servers, tools, call, prompts, getPrompt, resources, read, listen, doctor, demo])
)

/**
 * Prints a failure for a person: `error: <_tag>: <message>` and what is known of its cause for
 * our typed errors (with `--json`, also the error as the document on stdout), a pointer to
 * `--help` for command-line errors (already printed with their usage), the full cause for
 * anything else.
 *
 * @since 0.1.0
 * @category errors
 */
export const report = <E>(cause: Cause.Cause<E>): Effect.Effect<void> =>
  Effect.flatMap(Effect.serviceOption(Diagnostics.Session), (session) => {
    // Outside `run`, nothing was learned about the failure.
    const { diagnostics, mode } = Option.getOrElse(session, () => ({
      mode: Output.modeOf([]),
      diagnostics: Diagnostics.make()
    }))
    return errors.report(cause, mode, diagnostics)
  })

/**
 * The exit status of a run: 0 ok, 1 an error (a tool result with `isError` included), 2 a
 * usage error, 130 interrupted (Ctrl-C).
 *
 * @since 0.1.0
 * @category running
 */
export const exitCode: (exit: Exit.Exit<unknown, unknown>) => number = errors.exitCode

/** Log lines go to stderr, one line each, so they never mix with a command's output. */
const stderrLogger = Logger.replace(
  Logger.defaultLogger,
  Logger.withConsoleError(
    Logger.make(({ logLevel, message }) =>
      `${logLevel.label.toLowerCase()}: ${format.clean((Array.isArray(message) ? message : [message]).join(" "))}`
    )
  )
)

/**
 * Runs the command line (`process.argv`: executable, script, then arguments). `--help` prints
 * the help of the command it follows. Failures are reported on stderr (see {@link report}) and
 * fail the effect ({@link exitCode} says with which status). The minimum log level is
 * `Warning`; `--verbose` lowers it to `Debug`.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (
  argv: ReadonlyArray<string>
): Effect.Effect<void, CliError | ValidationError.ValidationError, Environment> => {
  const args = argv.slice(2)
  const mode = Output.modeOf(args)
  const help = Help.requested(args)
  if (help !== null) return Console.log(Help.text(help, mode.stdoutAnsi))
  const program = Command.run(command, { name: "mcp-effect", version })(argv).pipe(
    Effect.tapErrorCause(report),
    Effect.provideService(Diagnostics.Session, { mode, diagnostics: Diagnostics.make() }),
    Logger.withMinimumLogLevel(LogLevel.Warning),
    Effect.provide(stderrLogger)
  )
  return Output.withPlainStreams(mode, program)
}
