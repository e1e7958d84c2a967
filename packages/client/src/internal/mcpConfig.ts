/**
 * The bodies of `McpConfig`: `${…}` expansion, entry validation with one message per problem,
 * and the hosts' file locations (the hosts' formats are read in `config/`).
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { Entry, Host, HostEnvironment, HttpEntry, OAuthSettings } from "../McpConfig.js"
import { httpUrlProblem } from "./url.js"

/**
 * What `${…}` references resolve against.
 *
 * @internal
 */
export interface Variables {
  readonly env: (name: string) => string | undefined
  readonly home?: string | undefined
  readonly workspaceFolder?: string | undefined
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const REFERENCE = /\$\{([^}]*)\}/g

type Reference =
  | { readonly _tag: "Env"; readonly name: string; readonly fallback: string | undefined }
  | { readonly _tag: "Builtin"; readonly name: "userHome" | "workspaceFolder" }
  | { readonly _tag: "Input" }
  | { readonly _tag: "Invalid" }

const parseReference = (body: string): Reference => {
  if (body.startsWith("input:")) return { _tag: "Input" }
  if (body === "userHome" || body === "workspaceFolder") return { _tag: "Builtin", name: body }
  const rest = body.startsWith("env:") ? body.slice("env:".length) : body
  const separator = rest.indexOf(":-")
  const name = separator === -1 ? rest : rest.slice(0, separator)
  if (!NAME.test(name)) return { _tag: "Invalid" }
  return { _tag: "Env", name, fallback: separator === -1 ? undefined : rest.slice(separator + 2) }
}

/**
 * The environment variables a document's strings refer to (read once, before expansion).
 *
 * @internal
 */
export const referencedVariables = (document: unknown): ReadonlyArray<string> => {
  const names = new Set<string>()
  const visit = (value: unknown): void => {
    if (typeof value === "string") {
      for (const match of value.matchAll(REFERENCE)) {
        const reference = parseReference(match[1]!)
        if (reference._tag === "Env") names.add(reference.name)
      }
    } else if (Array.isArray(value)) {
      value.forEach(visit)
    } else if (Predicate.isRecord(value)) {
      Object.values(value).forEach(visit)
    }
  }
  visit(document)
  return [...names]
}

const resolve = (reference: Reference, written: string, variables: Variables): Either.Either<string, string> => {
  switch (reference._tag) {
    case "Env": {
      const value = variables.env(reference.name)
      // `:-` as in the shell: the default also replaces an empty value.
      if (reference.fallback !== undefined && (value === undefined || value === "")) {
        return Either.right(reference.fallback)
      }
      return value === undefined
        ? Either.left(`${written}: ${reference.name} is not set (write \${${reference.name}:-default} for a default)`)
        : Either.right(value)
    }
    case "Builtin": {
      const value = reference.name === "userHome" ? variables.home : variables.workspaceFolder
      return value === undefined ? Either.left(`${written} is not known here`) : Either.right(value)
    }
    case "Input":
      return Either.left(`${written} is a VS Code input prompt, which only VS Code can ask; use \${env:NAME} instead`)
    case "Invalid":
      return Either.left(`${written} is not a variable (expected \${NAME}, \${env:NAME} or \${NAME:-default})`)
  }
}

/**
 * Expands `${NAME}`, `${env:NAME}`, `${NAME:-default}`, `${userHome}` and `${workspaceFolder}`;
 * Left: the first reference that cannot be expanded.
 *
 * @internal
 */
export const expand = (text: string, variables: Variables): Either.Either<string, string> => {
  let problem: string | undefined
  const value = text.replace(REFERENCE, (written, body: string) => {
    if (problem !== undefined) return written
    const resolved = resolve(parseReference(body), written, variables)
    if (Either.isRight(resolved)) return resolved.right
    problem = resolved.left
    return written
  })
  return problem === undefined ? Either.right(value) : Either.left(problem)
}

const TYPES: Record<string, Entry["type"]> = {
  stdio: "stdio",
  http: "streamable_http",
  "streamable-http": "streamable_http",
  streamable_http: "streamable_http",
  streamablehttp: "streamable_http",
  sse: "sse",
  plain_http: "plain_http"
}

const EXPECTED_TYPE = "\"stdio\", \"http\" (Streamable HTTP), \"sse\" or \"plain_http\""

const URL_FIELDS = ["url", "serverUrl", "httpUrl"] as const
const STDIO_FIELDS = new Set(["command", "args", "env", "cwd", "inheritEnv"])
const HTTP_FIELDS = new Set<string>([...URL_FIELDS, "headers", "retries", "oauth", "endpoint"])
const COMMON_FIELDS = new Set([
  "type",
  "readTimeout",
  "disabled",
  "includeTools",
  "excludeTools",
  "disabledTools",
  "maxResultChars",
  "maxResultBytes",
  "toolPrefix",
  "toolNames"
])
/** Other hosts' settings: meaningful to them, harmless to ignore. */
const IGNORED_FIELDS = new Set([
  "description",
  "autoApprove",
  "alwaysAllow",
  "timeout",
  "trust",
  "dev",
  "gallery",
  "version",
  "icon"
])

const kindOfValue = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
    ? "an array"
    : typeof value === "object"
    ? "an object"
    : typeof value === "string"
    ? "a string"
    : `a ${typeof value}`

const shown = (value: unknown): string =>
  typeof value === "string" ? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value) : kindOfValue(value)

/** One entry being read: its raw object, and where its problems go. */
interface Reader {
  readonly raw: Record<string, unknown>
  readonly variables: Variables
  readonly problem: (field: string | undefined, message: string) => void
  /** How many problems this entry had so far. */
  readonly problems: () => number
}

const string = (r: Reader, field: string): string | undefined => {
  const value = r.raw[field]
  if (value === undefined) return undefined
  if (typeof value !== "string") return void r.problem(field, `expected a string, got ${kindOfValue(value)}`)
  return expandIn(r, field, value)
}

const expandIn = (r: Reader, field: string, value: string): string | undefined => {
  const expanded = expand(value, r.variables)
  return Either.isRight(expanded) ? expanded.right : void r.problem(field, expanded.left)
}

const stringArray = (r: Reader, field: string): ReadonlyArray<string> | undefined => {
  const value = r.raw[field]
  if (value === undefined) return undefined
  if (!Array.isArray(value)) return void r.problem(field, `expected an array of strings, got ${kindOfValue(value)}`)
  const result: Array<string> = []
  value.forEach((item: unknown, i) => {
    const at = `${field}[${i}]`
    if (typeof item !== "string") return r.problem(at, `expected a string, got ${shown(item)}`)
    const expanded = expandIn(r, at, item)
    if (expanded !== undefined) result.push(expanded)
  })
  return result
}

/** Values are not shown: environment variables and headers hold secrets. */
const stringRecord = (r: Reader, field: string): Readonly<Record<string, string>> | undefined => {
  const value = r.raw[field]
  if (value === undefined) return undefined
  if (!Predicate.isRecord(value)) {
    return void r.problem(field, `expected an object of strings, got ${kindOfValue(value)}`)
  }
  const result: Record<string, string> = {}
  for (const [key, item] of Object.entries(value)) {
    const at = `${field}.${key}`
    if (typeof item !== "string") {
      r.problem(at, `expected a string, got ${kindOfValue(item)}`)
      continue
    }
    const expanded = expandIn(r, at, item)
    if (expanded !== undefined) result[key] = expanded
  }
  return result
}

const number = (r: Reader, field: string, what: string, valid: (n: number) => boolean): number | undefined => {
  const value = r.raw[field]
  if (value === undefined) return undefined
  if (typeof value !== "number" || !valid(value)) return void r.problem(field, `expected ${what}, got ${shown(value)}`)
  return value
}

const boolean = (r: Reader, field: string): boolean | undefined => {
  const value = r.raw[field]
  if (value === undefined) return undefined
  if (typeof value !== "boolean") return void r.problem(field, `expected true or false, got ${shown(value)}`)
  return value
}

const typeOf = (r: Reader, urlField: string | undefined): Entry["type"] | undefined => {
  const written = r.raw.type
  if (written !== undefined) {
    const type = typeof written === "string" ? TYPES[written.toLowerCase()] : undefined
    return type ?? void r.problem("type", `expected ${EXPECTED_TYPE}, got ${shown(written)}`)
  }
  const hasCommand = r.raw.command !== undefined
  if (hasCommand && urlField !== undefined) {
    return void r.problem(undefined, `has both "command" and "${urlField}": set "type" to say which`)
  }
  if (hasCommand) return "stdio"
  if (urlField !== undefined) return "streamable_http"
  return void r.problem(undefined, "expected \"command\" (a stdio server) or \"url\" (an HTTP server)")
}

const urlFieldOf = (r: Reader): string | undefined => {
  const present = URL_FIELDS.filter((field) => r.raw[field] !== undefined)
  if (present.length > 1) r.problem(undefined, `has ${present.map((f) => `"${f}"`).join(" and ")}: keep one`)
  return present[0]
}

const KNOWN_FIELDS: ReadonlyArray<string> = [...STDIO_FIELDS, ...HTTP_FIELDS, ...COMMON_FIELDS]

/** The edit distance of two words, a swap of neighbours counting as one edit (`evn` → `env`). */
const distance = (a: string, b: string): number => {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i]!
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1)
      }
    }
  }
  return rows[a.length]![b.length]!
}

const folded = (field: string) => field.toLowerCase().replace(/[-_]/g, "")

/**
 * The word among `known` that `word` misspells, if one is close: the same letters in another
 * case or with `_`/`-` (`read_timeout`), or one edit away (two for words of more than four
 * letters: `comand`, `evn`, `header`).
 *
 * @internal
 */
export const misspelled = (word: string, known: ReadonlyArray<string>): string | undefined => {
  if (known.includes(word)) return undefined
  let best: { readonly word: string; readonly distance: number } | undefined
  for (const candidate of known) {
    const d = distance(folded(word), folded(candidate))
    if (d <= (candidate.length > 4 ? 2 : 1) && (best === undefined || d < best.distance)) {
      best = { word: candidate, distance: d }
    }
  }
  return best?.word
}

/** A field close to one we read is a mistake that would silently change the entry: a problem. */
const checkSpelling = (r: Reader): void => {
  for (const field of Object.keys(r.raw)) {
    if (IGNORED_FIELDS.has(field)) continue
    const meant = misspelled(field, KNOWN_FIELDS)
    if (meant !== undefined) r.problem(field, `unknown field (did you mean "${meant}"?)`)
  }
}

/**
 * Fields of the other kind of entry are mistakes; fields nobody knows are only warned about
 * (hosts add their own); misspelt ones were reported by `checkSpelling`.
 */
const checkFields = (r: Reader, type: Entry["type"], warn: (message: string) => void): void => {
  for (const field of Object.keys(r.raw)) {
    if (COMMON_FIELDS.has(field) || IGNORED_FIELDS.has(field)) continue
    const own = type === "stdio" ? STDIO_FIELDS.has(field) : HTTP_FIELDS.has(field)
    if (own && (field !== "endpoint" || type === "plain_http")) continue
    if (field === "endpoint" && own) {
      r.problem(field, "applies to \"type\": \"plain_http\" only (\"http\" means Streamable HTTP, as in every host)")
    } else if (STDIO_FIELDS.has(field)) {
      r.problem(field, "applies to stdio entries only")
    } else if (HTTP_FIELDS.has(field)) {
      r.problem(field, "applies to HTTP entries only")
    } else if (field === "envFile") {
      warn("envFile is not supported: its variables are not loaded (use \"env\")")
    } else if (misspelled(field, KNOWN_FIELDS) === undefined) {
      warn(`ignoring unknown field "${field}"`)
    }
  }
}

/**
 * The tool filter of the hosts' fields: `includeTools` allows, `excludeTools` and
 * `disabledTools` deny (Gemini CLI, VS Code and Cursor spell them so), `*` globs.
 */
const toolsOf = (
  r: Reader
): { readonly include?: ReadonlyArray<string>; readonly exclude?: ReadonlyArray<string> } | undefined => {
  const include = stringArray(r, "includeTools")
  const exclude = [...(stringArray(r, "excludeTools") ?? []), ...(stringArray(r, "disabledTools") ?? [])]
  if (include === undefined && exclude.length === 0) return undefined
  return { ...(include === undefined ? {} : { include }), ...(exclude.length === 0 ? {} : { exclude }) }
}

/** The result limits of an entry (`maxResultChars`, `maxResultBytes`), whole numbers from 0. */
const resultLimitsOf = (r: Reader): { maxResultChars?: number; maxResultBytes?: number } => {
  const limit = (field: string) => number(r, field, "a whole number from 0", (n) => Number.isInteger(n) && n >= 0)
  const chars = limit("maxResultChars")
  const bytes = limit("maxResultBytes")
  return {
    ...(chars === undefined ? {} : { maxResultChars: chars }),
    ...(bytes === undefined ? {} : { maxResultBytes: bytes })
  }
}

/**
 * The names a server's tools are shown under: `toolPrefix` (a prefix, or `true` for the
 * server's name; `false` none) and `toolNames` (a tool's own name → the name shown).
 */
const namingOf = (
  r: Reader
): { readonly toolPrefix?: string | true; readonly toolNames?: Readonly<Record<string, string>> } => {
  const written = r.raw.toolPrefix
  const toolPrefix = typeof written === "boolean" ? (written ? true : undefined) : string(r, "toolPrefix")
  if (toolPrefix === "") r.problem("toolPrefix", "expected a prefix or true, got an empty string")
  const toolNames = stringRecord(r, "toolNames")
  if (toolNames !== undefined) {
    for (const [from, to] of Object.entries(toolNames)) {
      if (to === "") r.problem(`toolNames.${from}`, "expected a name, got an empty string")
    }
  }
  return {
    ...(toolPrefix === undefined || toolPrefix === "" ? {} : { toolPrefix }),
    ...(toolNames === undefined ? {} : { toolNames })
  }
}

const readTimeoutOf = (r: Reader) =>
  number(r, "readTimeout", "a positive number of seconds", (n) => n > 0 && Number.isFinite(n))

const stdioEntry = (r: Reader, name: string, disabled: boolean): Entry | undefined => {
  const command = string(r, "command")
  if (r.raw.command === undefined) r.problem("command", "missing (a stdio entry runs a command)")
  else if (command === "") r.problem("command", "expected a command, got an empty string")
  const args = stringArray(r, "args")
  const env = stringRecord(r, "env")
  const cwd = string(r, "cwd")
  const inheritEnv = boolean(r, "inheritEnv")
  const readTimeout = readTimeoutOf(r)
  if (command === undefined || command === "") return undefined
  const entry = { name, type: "stdio" as const, command, args: args ?? [], env, cwd, readTimeout, disabled }
  return inheritEnv === undefined ? entry : { ...entry, inheritEnv }
}

const httpUrl = (r: Reader, field: string | undefined): string | undefined => {
  if (field === undefined) return void r.problem("url", "missing (an HTTP entry needs the server's URL)")
  const url = string(r, field)
  if (url === undefined) return undefined
  // The same check, and message, as the transports' constructors.
  const problem = httpUrlProblem(url)
  return problem === undefined ? url : void r.problem(field, problem)
}

const httpEntry = (
  r: Reader,
  name: string,
  type: HttpEntry["type"],
  urlField: string | undefined,
  disabled: boolean
): Entry | undefined => {
  const url = httpUrl(r, urlField)
  const headers = stringRecord(r, "headers")
  const retries = number(r, "retries", "a whole number of retries (0 or more)", (n) => Number.isInteger(n) && n >= 0)
  const endpoint = string(r, "endpoint")
  const readTimeout = readTimeoutOf(r)
  const oauth = oauthOf(r)
  if (oauth !== undefined && Object.keys(headers ?? {}).some((h) => h.toLowerCase() === "authorization")) {
    r.problem("oauth", "oauth and an Authorization header exclude each other")
  }
  if (url === undefined) return undefined
  return { name, type, url, headers, retries, endpoint, readTimeout, oauth, disabled }
}

interface Check {
  readonly test: (value: unknown) => boolean
  readonly expected: string
}

const check = (expected: string, test: (value: unknown) => boolean): Check => ({ expected, test })
const oneOf = (...values: ReadonlyArray<string>) =>
  check(`one of ${values.map((v) => `"${v}"`).join(", ")}`, (value) => values.includes(value as string))
const aString = check("a string", (value) => typeof value === "string")
const aBoolean = check("true or false", (value) => typeof value === "boolean")

const OAUTH_FIELDS: { readonly [K in keyof Required<OAuthSettings>]: Check } = {
  grant: oneOf("authorization_code", "client_credentials"),
  clientId: aString,
  clientSecret: aString,
  issuer: aString,
  tokenEndpointAuthMethod: oneOf("client_secret_basic", "client_secret_post", "none"),
  scope: aString,
  redirectUri: aString,
  clientIdMetadataUrl: aString,
  clientName: aString,
  offlineAccess: aBoolean,
  storage: check("a path or false", (value) => typeof value === "string" || value === false),
  interactive: aBoolean,
  openBrowser: aBoolean,
  timeout: check("a positive number", (value) => typeof value === "number" && value > 0),
  refreshSkew: check("a number of seconds (0 or more)", (value) => typeof value === "number" && value >= 0)
}

const camelCase = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())

/** The entry's `oauth` member: `undefined` when absent or `false`. */
const oauthOf = (r: Reader): OAuthSettings | undefined => {
  const value = r.raw.oauth
  if (value === undefined || value === false) return undefined
  if (value === true) return {}
  if (!Predicate.isRecord(value)) {
    return void r.problem("oauth", `expected true, false or an object, got ${shown(value)}`)
  }
  const before = r.problems()
  for (const [key, item] of Object.entries(value)) {
    const check = (OAUTH_FIELDS as Record<string, Check | undefined>)[key]
    if (check === undefined) {
      const guess = camelCase(key)
      r.problem(`oauth.${key}`, `unknown setting${guess in OAUTH_FIELDS ? ` (did you mean "${guess}"?)` : ""}`)
    } else if (!check.test(item)) {
      r.problem(`oauth.${key}`, `expected ${check.expected}, got ${shown(item)}`)
    }
  }
  return r.problems() === before ? value as OAuthSettings : undefined
}

/**
 * What a document held: the valid entries, one message per problem, and warnings.
 *
 * @internal
 */
export interface Decoded {
  readonly entries: ReadonlyArray<Entry>
  readonly problems: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
}

const HOSTS_KEYS = "\"mcpServers\" (Claude Desktop, Cursor, Windsurf, Claude Code) or \"servers\" (VS Code)"

/** The object holding the servers: the document, or VS Code settings' `mcp` member. */
const containerOf = (document: Record<string, unknown>): Record<string, unknown> =>
  document.mcpServers === undefined && document.servers === undefined && Predicate.isRecord(document.mcp)
    ? document.mcp
    : document

const serversOf = (
  document: unknown,
  problems: Array<string>,
  warnings: Array<string>
): ReadonlyArray<readonly [string, unknown]> => {
  if (!Predicate.isRecord(document)) {
    problems.push(`expected a JSON object with ${HOSTS_KEYS}, got ${kindOfValue(document)}`)
    return []
  }
  const container = containerOf(document)
  if (container.mcpServers !== undefined && container.servers !== undefined) {
    problems.push("has both \"mcpServers\" and \"servers\": keep one")
    return []
  }
  const key = container.mcpServers !== undefined ? "mcpServers" : "servers"
  const servers = container[key]
  if (servers === undefined) {
    problems.push(`no ${HOSTS_KEYS} object`)
    return []
  }
  if (!Predicate.isRecord(servers)) {
    problems.push(`"${key}": expected an object of servers by name, got ${kindOfValue(servers)}`)
    return []
  }
  if (container.inputs !== undefined) {
    warnings.push("\"inputs\" (VS Code prompts) are ignored: an entry using ${input:…} fails")
  }
  if (Object.keys(servers).length === 0) warnings.push(`"${key}" is empty: there is no server to connect`)
  return Object.entries(servers)
}

const decodeEntry = (
  name: string,
  raw: unknown,
  variables: Variables,
  problems: Array<string>,
  warnings: Array<string>
): Entry | undefined => {
  const where = `server "${name}"`
  if (!Predicate.isRecord(raw)) {
    problems.push(`${where}: expected an object with "command" or "url", got ${kindOfValue(raw)}`)
    return undefined
  }
  let count = 0
  const reader: Reader = {
    raw,
    variables,
    problem: (field, message) => {
      count++
      problems.push(field === undefined ? `${where}: ${message}` : `${where}: ${field}: ${message}`)
    },
    problems: () => count
  }
  checkSpelling(reader)
  const urlField = urlFieldOf(reader)
  // A misspelt "command" or "url" was named already: "expected command or url" would add nothing.
  if (count > 0 && raw.command === undefined && urlField === undefined) return undefined
  const type = typeOf(reader, urlField)
  if (type === undefined) return undefined
  checkFields(reader, type, (message) => warnings.push(`${where}: ${message}`))
  const disabled = boolean(reader, "disabled") ?? false
  const tools = toolsOf(reader)
  const limits = resultLimitsOf(reader)
  const naming = namingOf(reader)
  const entry = type === "stdio"
    ? stdioEntry(reader, name, disabled)
    : httpEntry(reader, name, type, urlField, disabled)
  return count > 0 || entry === undefined
    ? undefined
    : { ...entry, ...(tools === undefined ? {} : { tools }), ...limits, ...naming }
}

/**
 * Validates and expands a parsed document.
 *
 * @internal
 */
export const decode = (document: unknown, variables: Variables): Decoded => {
  const problems: Array<string> = []
  const warnings: Array<string> = []
  const entries: Array<Entry> = []
  for (const [name, raw] of serversOf(document, problems, warnings)) {
    const entry = decodeEntry(name, raw, variables, problems, warnings)
    if (entry !== undefined) entries.push(entry)
  }
  return { entries, problems, warnings }
}

/** @internal */
export const hostNames: Record<Host, string> = {
  claude: "Claude Desktop",
  "claude-code": "Claude Code",
  cursor: "Cursor",
  vscode: "VS Code",
  windsurf: "Windsurf",
  codex: "Codex",
  opencode: "OpenCode",
  gemini: "Gemini CLI",
  zed: "Zed"
}

/** The platform's configuration directory: `%APPDATA%`, `~/Library/Application Support`, `$XDG_CONFIG_HOME` or `~/.config`. */
const configDir = (env: HostEnvironment, join: (...parts: ReadonlyArray<string>) => string): string =>
  env.platform === "win32"
    ? env.appData ?? join(env.home, "AppData", "Roaming")
    : env.platform === "darwin"
    ? join(env.home, "Library", "Application Support")
    : env.xdgConfigHome ?? join(env.home, ".config")

/**
 * Where each host keeps its configuration, most specific first.
 *
 * @internal
 */
export const hostPaths = (host: Host, env: HostEnvironment): ReadonlyArray<string> => {
  const separator = env.platform === "win32" ? "\\" : "/"
  const join = (...parts: ReadonlyArray<string>) => parts.join(separator)
  switch (host) {
    case "claude":
      return [join(configDir(env, join), "Claude", "claude_desktop_config.json")]
    case "claude-code":
      return [join(".", ".mcp.json"), join(env.home, ".claude.json")]
    case "cursor":
      return [join(".", ".cursor", "mcp.json"), join(env.home, ".cursor", "mcp.json")]
    case "vscode": {
      const user = join(configDir(env, join), "Code", "User")
      return [join(".", ".vscode", "mcp.json"), join(user, "mcp.json"), join(user, "settings.json")]
    }
    case "windsurf":
      return [join(env.home, ".codeium", "windsurf", "mcp_config.json")]
    case "codex":
      return [join(".", ".codex", "config.toml"), join(env.codexHome ?? join(env.home, ".codex"), "config.toml")]
    case "opencode": {
      // OpenCode follows XDG on every platform, Windows included.
      const user = join(env.xdgConfigHome ?? join(env.home, ".config"), "opencode")
      return [
        join(".", "opencode.jsonc"),
        join(".", "opencode.json"),
        join(user, "opencode.jsonc"),
        join(user, "opencode.json")
      ]
    }
    case "gemini":
      return [join(".", ".gemini", "settings.json"), join(env.home, ".gemini", "settings.json")]
    case "zed": {
      // Zed keeps `~/.config/zed` on macOS too.
      const user = env.platform === "win32"
        ? join(env.appData ?? join(env.home, "AppData", "Roaming"), "Zed")
        : join(env.xdgConfigHome ?? join(env.home, ".config"), "zed")
      return [join(".", ".zed", "settings.json"), join(user, "settings.json")]
    }
  }
}

/**
 * The folder `${workspaceFolder}` means for a file: its directory, or the project above a
 * `.vscode` / `.cursor` folder.
 *
 * @internal
 */
export const workspaceFolderOf = (path: string): string => {
  const parts = path.split(/[\\/]/)
  parts.pop()
  if (parts.length > 0 && [".vscode", ".cursor", ".codex", ".gemini", ".zed"].includes(parts[parts.length - 1]!)) {
    parts.pop()
  }
  const folder = parts.join(path.includes("\\") && !path.includes("/") ? "\\" : "/")
  return folder === "" ? (path.startsWith("/") ? "/" : ".") : folder
}
