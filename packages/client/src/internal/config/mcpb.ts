/**
 * An `.mcpb` bundle's `manifest.json`: what it asks the user for (`user_config`) and the
 * command that runs its server, with `${__dirname}`, `${HOME}`, `${user_config.KEY}` and the
 * other references of the MCPB specification substituted.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { Manifest, UserConfigField, UserConfigValue } from "../../McpBundle.js"

const FIELD_TYPES = ["string", "number", "boolean", "directory", "file"] as const

const fieldOf = (key: string, raw: unknown, problems: Array<string>): UserConfigField | undefined => {
  if (!Predicate.isRecord(raw)) return void problems.push(`user_config.${key}: expected an object`)
  const type = raw.type
  if (!FIELD_TYPES.includes(type as UserConfigField["type"])) {
    return void problems.push(`user_config.${key}.type: expected one of ${FIELD_TYPES.join(", ")}`)
  }
  const text = (value: unknown) => typeof value === "string" ? value : undefined
  const number = (value: unknown) => typeof value === "number" ? value : undefined
  return {
    key,
    type: type as UserConfigField["type"],
    title: text(raw.title) ?? key,
    description: text(raw.description),
    required: raw.required === true,
    default: raw.default as UserConfigValue | undefined,
    multiple: raw.multiple === true,
    sensitive: raw.sensitive === true,
    min: number(raw.min),
    max: number(raw.max)
  }
}

const stringArray = (value: unknown): value is ReadonlyArray<string> =>
  Array.isArray(value) && value.every((item) => typeof item === "string")

/**
 * Validates a parsed manifest; Left: one line per problem.
 *
 * @internal
 */
export const decode = (json: unknown): Either.Either<Manifest, ReadonlyArray<string>> => {
  if (!Predicate.isRecord(json)) return Either.left(["manifest.json: expected an object"])
  const problems: Array<string> = []
  if (typeof json.name !== "string") problems.push("name: expected a string")
  const server = json.server
  if (!Predicate.isRecord(server)) {
    problems.push("server: expected an object")
  } else if (!Predicate.isRecord(server.mcp_config) && typeof server.entry_point !== "string") {
    problems.push("server: expected mcp_config or entry_point")
  }
  const userConfig = Predicate.isRecord(json.user_config)
    ? Object.entries(json.user_config).flatMap(([key, raw]) => fieldOf(key, raw, problems) ?? [])
    : []
  const compatibility = Predicate.isRecord(json.compatibility) ? json.compatibility : {}
  if (problems.length > 0 || !Predicate.isRecord(server)) return Either.left(problems)
  return Either.right({
    name: json.name as string,
    version: typeof json.version === "string" ? json.version : undefined,
    displayName: typeof json.display_name === "string" ? json.display_name : undefined,
    description: typeof json.description === "string" ? json.description : undefined,
    server: {
      type: typeof server.type === "string" ? server.type : "binary",
      entryPoint: typeof server.entry_point === "string" ? server.entry_point : undefined,
      mcpConfig: Predicate.isRecord(server.mcp_config) ? server.mcp_config : undefined
    },
    userConfig,
    platforms: stringArray(compatibility.platforms) ? compatibility.platforms : undefined
  })
}

/** What a value must be for its field; undefined when it fits. */
const valueProblem = (field: UserConfigField, value: UserConfigValue): string | undefined => {
  const values = Array.isArray(value) ? value : [value]
  if (Array.isArray(value) && !field.multiple) return "expected one value"
  for (const item of values) {
    if (field.type === "number") {
      if (typeof item !== "number" || Number.isNaN(item)) return "expected a number"
      if (field.min !== undefined && item < field.min) return `expected at least ${field.min}`
      if (field.max !== undefined && item > field.max) return `expected at most ${field.max}`
    } else if (field.type === "boolean" ? typeof item !== "boolean" : typeof item !== "string") {
      return `expected ${field.type === "boolean" ? "true or false" : "a string"}`
    }
  }
  return undefined
}

/**
 * The values to launch with: those given, else the fields' defaults; Left: the required fields
 * without one and the values of the wrong kind.
 *
 * @internal
 */
export const values = (
  manifest: Manifest,
  given: Readonly<Record<string, UserConfigValue>>
): Either.Either<Record<string, UserConfigValue>, ReadonlyArray<string>> => {
  const problems: Array<string> = []
  const out: Record<string, UserConfigValue> = {}
  for (const field of manifest.userConfig) {
    const value = given[field.key] ?? field.default
    if (value === undefined) {
      if (field.required) problems.push(`user_config.${field.key} (${field.title}): required, and not given`)
      continue
    }
    const problem = valueProblem(field, value)
    if (problem === undefined) out[field.key] = value
    else problems.push(`user_config.${field.key} (${field.title}): ${problem}`)
  }
  return problems.length > 0 ? Either.left(problems) : Either.right(out)
}

/**
 * What `${…}` means in a manifest's `mcp_config`.
 *
 * @internal
 */
export interface Context {
  readonly directory: string
  readonly home: string
  readonly platform: string
  readonly values: Readonly<Record<string, UserConfigValue>>
}

const builtin = (name: string, context: Context): string | undefined => {
  const separator = context.platform === "win32" ? "\\" : "/"
  switch (name) {
    case "__dirname":
      return context.directory
    case "HOME":
      return context.home
    case "DESKTOP":
    case "DOCUMENTS":
    case "DOWNLOADS":
      return `${context.home}${separator}${name[0]}${name.slice(1).toLowerCase()}`
    case "pathSeparator":
    case "/":
      return separator
  }
  return undefined
}

const REFERENCE = /\$\{([^}]+)\}/g

const substitute = (text: string, context: Context, problems: Array<string>): string =>
  text.replace(REFERENCE, (written, name: string) => {
    if (name.startsWith("user_config.")) {
      const value = context.values[name.slice("user_config.".length)]
      // An optional field left empty: the reference disappears (as in Claude Desktop).
      return value === undefined ? "" : Array.isArray(value) ? value.join(",") : String(value)
    }
    const value = builtin(name, context)
    if (value === undefined) problems.push(`${written}: not a reference the bundle format defines`)
    return value ?? written
  })

/** An argument that is exactly a `multiple` field's reference becomes one argument per value. */
const argumentsOf = (args: ReadonlyArray<string>, context: Context, problems: Array<string>) =>
  args.flatMap((arg) => {
    const whole = /^\$\{user_config\.([^}]+)\}$/.exec(arg)
    const value = whole === null ? undefined : context.values[whole[1]!]
    if (Array.isArray(value)) return value
    const text = substitute(arg, context, problems)
    return whole !== null && text === "" ? [] : [text]
  })

const defaultCommand = (manifest: Manifest, context: Context): Record<string, unknown> => {
  const entry = `\${__dirname}${context.platform === "win32" ? "\\" : "/"}${manifest.server.entryPoint ?? ""}`
  switch (manifest.server.type) {
    case "node":
      return { command: "node", args: [entry] }
    case "python":
      return { command: context.platform === "win32" ? "python" : "python3", args: [entry] }
    default:
      return { command: entry, args: [] }
  }
}

/**
 * The command, arguments and environment that run a bundle's server on `context.platform`.
 *
 * @internal
 */
export const launch = (
  manifest: Manifest,
  context: Context
): Either.Either<
  { readonly command: string; readonly args: ReadonlyArray<string>; readonly env: Record<string, string> },
  ReadonlyArray<string>
> => {
  const base = manifest.server.mcpConfig ?? defaultCommand(manifest, context)
  const overrides = Predicate.isRecord(base.platform_overrides) ? base.platform_overrides[context.platform] : undefined
  const config = Predicate.isRecord(overrides) ? { ...base, ...overrides } : base
  const problems: Array<string> = []
  if (typeof config.command !== "string") return Either.left(["server.mcp_config.command: expected a string"])
  const args = stringArray(config.args) ? argumentsOf(config.args, context, problems) : []
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(Predicate.isRecord(config.env) ? config.env : {})) {
    if (typeof value === "string") env[key] = substitute(value, context, problems)
  }
  const command = substitute(config.command, context, problems)
  return problems.length > 0 ? Either.left(problems) : Either.right({ command, args, env })
}
