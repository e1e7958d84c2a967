/**
 * The help text, written for this tool (@effect/cli's generated help shows a placeholder for
 * every text option and styles itself whatever the stream).
 *
 * @internal
 */
import { bold, hasOption } from "./output.js"

interface Page {
  readonly usage: ReadonlyArray<string>
  readonly summary: string
  readonly text?: ReadonlyArray<string>
  readonly options?: ReadonlyArray<readonly [string, string]>
  readonly examples?: ReadonlyArray<string>
  /** Sections of the tool's page. */
  readonly sections?: ReadonlyArray<readonly [string, ReadonlyArray<string>]>
}

const common: ReadonlyArray<readonly [string, string]> = [
  ["-t, --target TARGET", "a URL, a command line, or stdio://command args; NAME=TARGET names it (repeatable)"],
  [
    "-c, --config FILE|HOST",
    "a configuration file (any host's, a registry server.json, an .mcpb bundle), or a host's: claude,"
    + " claude-code, cursor, vscode, windsurf, codex, opencode, gemini, zed"
  ],
  ["-s, --server NAME", "use only the server of this name"],
  ["--json", "print one JSON document on stdout (logs and errors stay on stderr)"],
  ["--timeout MS", "request timeout in milliseconds (default: the server's, 30 s)"],
  ["-v, --verbose", "debug lines on stderr (server stderr, protocol details)"],
  ["--oauth", "sign in with OAuth when a URL target asks for it (browser flow)"],
  ["--oauth-storage FILE", "with --oauth: the token file (default: mcp-effect/oauth.json in your config dir)"],
  ["--no-browser", "with --oauth: print the authorization URL instead of opening it"],
  ["--proxy URL|none", "HTTP(S) requests through this proxy, or none (default: HTTP_PROXY, HTTPS_PROXY, NO_PROXY)"],
  ["--no-era-cache", "probe each server's protocol era on every connect (default: remembered in mcp-effect/era.json)"],
  ["--env KEY=VALUE", "a variable for every stdio server's environment (repeatable)"],
  ["--inherit-env", "stdio servers get this shell's whole environment, not the safe default"],
  ["--user-config KEY=VALUE", "an answer to an .mcpb bundle's user_config (repeatable; repeat a key for a list)"],
  ["--pinned FILE", "pin the tools of the servers a lock file (tools --pin) names: a drift is a warning"],
  ["--strict", "with --pinned: a tool that drifted from its pin is hidden, and calling it fails"],
  ["-h, --help", "this text"]
]

const pages: Record<string, Page> = {
  servers: {
    usage: ["mcp-effect servers [options]"],
    summary: "list the configured servers and whether each answers",
    text: [
      "Connects to each server on its own and prints its name, transport, where it is and its",
      "status: ok (with the server's name, version and protocol), failed (with the cause) or",
      "disabled. Exits with 1 when a server failed."
    ]
  },
  tools: {
    usage: ["mcp-effect tools [--pin [FILE]] [options]"],
    summary: "list the tools of every server, with their parameters and hints",
    text: [
      "With --pin, also write the lock file FILE (default mcp-lock.json): each tool's fingerprint,",
      "by server. The servers listed replace their entries; the others the file holds are kept.",
      "Then --pinned FILE warns when a server changed, added or removed a tool (--strict refuses it)."
    ],
    options: [["--pin [FILE]", "write the lock file of the tools listed (default mcp-lock.json)"]],
    examples: [
      "mcp-effect tools --pin --config claude",
      "mcp-effect call github.create_issue title=x --config claude --pinned mcp-lock.json --strict"
    ]
  },
  call: {
    usage: ["mcp-effect call [SERVER.]TOOL [KEY=VALUE ...] [--args JSON] [options]"],
    summary: "call a tool and print its result; progress goes to stderr",
    text: [
      "SERVER.TOOL names the server (files.read_file); a plain TOOL is routed to the server that",
      "offers it. A VALUE that parses as JSON is that JSON (n=3, flag=true, tags='[\"a\"]'); any",
      "other VALUE is a string. KEY=VALUE pairs override --args. A result with isError exits",
      "with 1."
    ],
    options: [
      ["-a, --args JSON", "arguments as a JSON object"],
      ["--allow-tool-errors", "exit with 0 when the tool answers isError"]
    ],
    examples: ["mcp-effect call files.read_file path=notes.txt", "mcp-effect call add a=1 b=2 --json"]
  },
  prompts: { usage: ["mcp-effect prompts [options]"], summary: "list the prompts of every server" },
  "get-prompt": {
    usage: ["mcp-effect get-prompt NAME [KEY=VALUE ...] [--args JSON] [options]"],
    summary: "render a prompt with its arguments (strings)",
    options: [["-a, --args JSON", "arguments as a JSON object"]]
  },
  resources: {
    usage: ["mcp-effect resources [options]"],
    summary: "list the resources and resource templates of every server"
  },
  read: { usage: ["mcp-effect read URI [options]"], summary: "read a resource and print its contents" },
  listen: {
    usage: ["mcp-effect listen (--tools | --prompts | --resources | --resource URI ...) [--count N] [options]"],
    summary: "print a server's change notifications as they arrive",
    text: [
      "A 2026-07-28 server gets a subscriptions/listen stream; a legacy one is listened to for its",
      "list_changed notifications, and resources/subscribe for each --resource. With --json, one",
      "JSON object per line (one per notification). Stops on Ctrl-C or after --count."
    ],
    options: [
      ["--tools", "tool list changes"],
      ["--prompts", "prompt list changes"],
      ["--resources", "resource list changes"],
      ["--resource URI", "updates of this resource (repeatable)"],
      ["--count N", "stop after N notifications"]
    ]
  },
  doctor: {
    usage: ["mcp-effect doctor [SERVER|TARGET] [options]"],
    summary: "check a connection step by step: DNS, TCP, TLS, HTTP, OAuth metadata, era, auth, tools",
    text: [
      "Runs, in order: DNS, TCP, TLS (https), the HTTP endpoint, the protected-resource and",
      "authorization-server metadata, the era (server/discover or initialize), authorization and",
      "tools/list; each line says the step's result and time, and a failed step a hint at the fix.",
      "The steps after a failure are not run. SERVER names a configured server; any other word is",
      "a target (a URL or a command line); without one, every enabled server and --target. It",
      "never signs in: a server that wants a token is reported. Exits with 1 when a step failed."
    ],
    examples: [
      "mcp-effect doctor https://mcp.example.com/mcp",
      "mcp-effect doctor github --config vscode --json"
    ]
  },
  demo: {
    usage: ["mcp-effect demo [options]"],
    summary: "a tour of what the client does, against the embedded demo server (or --target)",
    text: ["With --json, the tour goes to stderr and its summary is the document on stdout."]
  }
}

const root: Page = {
  usage: ["mcp-effect COMMAND [options]", "mcp-effect COMMAND --help"],
  summary: "inspect and call Model Context Protocol servers",
  sections: [
    ["Commands", Object.entries(pages).map(([name, page]) => `  ${name.padEnd(24)}${page.summary}`)],
    ["Servers", [
      "  From --target and --config. Without either: $MCP_CONFIG (a path or a host name), else",
      "  ./.mcp.json, else ./mcp.json; without a configuration file, the embedded demo server (which",
      "  stderr says). Without a COMMAND: `servers`, or the demo when nothing is configured."
    ]]
  ],
  examples: [
    "mcp-effect servers --config claude",
    "mcp-effect tools --target \"npx -y @modelcontextprotocol/server-everything stdio\"",
    "mcp-effect call files.read_file path=notes.txt",
    "mcp-effect tools --json --target https://example.com/mcp | jq '.tools[].name'"
  ]
}

const exitStatus = ["  0 ok, 1 an error (a tool result with isError too), 2 a usage error, 130 interrupted"]

const section = (ansi: boolean, title: string, lines: ReadonlyArray<string>) =>
  lines.length === 0 ? [] : ["", bold(ansi, title), ...lines]

const optionLines = (options: ReadonlyArray<readonly [string, string]>) =>
  options.map(([flag, text]) => `  ${flag.padEnd(24)}${text}`)

/**
 * The help of a command (`undefined`: the tool's).
 *
 * @internal
 */
export const text = (command: string | undefined, ansi: boolean): string => {
  const page = command !== undefined && Object.hasOwn(pages, command) ? pages[command]! : root
  const isRoot = page === root
  return [
    `mcp-effect — ${page.summary}`,
    ...section(ansi, "Usage", page.usage.map((line) => `  ${line}`)),
    ...section(ansi, "Description", (page.text ?? []).map((line) => `  ${line}`)),
    ...(page.sections ?? []).flatMap(([title, lines]) => section(ansi, title, lines)),
    ...section(ansi, "Options", optionLines(page.options ?? [])),
    ...section(ansi, isRoot ? "Options of every command" : "Common options", optionLines(common)),
    ...section(ansi, "Exit status", exitStatus),
    ...section(ansi, "Examples", (page.examples ?? []).map((line) => `  ${line}`)),
    "",
    "Documentation: docs/cli.md and docs/config.md in the mcp-effect repository"
  ].join("\n")
}

/**
 * Whether the command line asks for help, and for which command: `--help`/`-h` anywhere before
 * `--`, or `help [COMMAND]`. `null`: no help asked.
 *
 * @internal
 */
export const requested = (args: ReadonlyArray<string>): string | undefined | null => {
  const isCommand = (word: string | undefined): word is string => word !== undefined && Object.hasOwn(pages, word)
  if (args[0] === "help") return isCommand(args[1]) ? args[1] : undefined
  if (!hasOption(args, "--help", "-h")) return null
  return args.find(isCommand)
}
