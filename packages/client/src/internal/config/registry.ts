/**
 * The MCP registry's `server.json`: how to launch a published server. A package becomes a
 * stdio launch by its registry type (`npx`, `uvx`, `docker run`, `dnx`), a remote an HTTP
 * entry whose `{variables}` come from the environment; a declared variable that is required
 * and not set is reported as missing (the common decoder's `${NAME} is not set`), not left for
 * the server to trip over.
 *
 * @internal
 */
import * as Predicate from "effect/Predicate"
import type { Converted } from "./shared.js"

/**
 * Whether a document is a registry `server.json`.
 *
 * @internal
 */
export const recognizes = (document: Record<string, unknown>, path: string | undefined): boolean =>
  (typeof document.$schema === "string" && document.$schema.includes("server.schema.json"))
  || (/(^|[\\/])server\.json$/.test(path ?? "") &&
    (Array.isArray(document.packages) || Array.isArray(document.remotes)))

/** A `{name}` template variable as an environment reference (its name upper-cased). */
const variableName = (name: string) => name.toUpperCase().replace(/[^A-Z0-9_]/g, "_")

/** A declared input (variable, argument, header): a reference to the environment. */
const reference = (name: string, input: Record<string, unknown>): string => {
  if (typeof input.value === "string" && !/\{[^}]+\}/.test(input.value)) return input.value
  const fallback = typeof input.default === "string" ? input.default : input.isRequired === true ? undefined : ""
  return fallback === undefined ? `\${${name}}` : `\${${name}:-${fallback}}`
}

/** `{var}` in a value → the environment references of its declared `variables`. */
const template = (value: string, variables: unknown): string =>
  value.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const declared = Predicate.isRecord(variables) && Predicate.isRecord(variables[name])
      ? variables[name]
      : { isRequired: true }
    return reference(variableName(name), declared)
  })

const argumentsOf = (list: unknown): Array<string> => {
  if (!Array.isArray(list)) return []
  return list.filter(Predicate.isRecord).flatMap((argument) => {
    const raw = typeof argument.value === "string"
      ? template(argument.value, argument.variables)
      : typeof argument.name === "string" && argument.type === "positional"
      ? reference(variableName(argument.name), argument)
      : typeof argument.default === "string"
      ? argument.default
      : undefined
    if (argument.type === "named" && typeof argument.name === "string") {
      return raw === undefined ? [argument.name] : [argument.name, raw]
    }
    return raw === undefined || raw === "" ? [] : [raw]
  })
}

/** The command that runs a package of each registry type, before the runtime's own arguments. */
const launchers: Record<string, (identifier: string, version: string | undefined) => ReadonlyArray<string>> = {
  npm: (id, version) => ["npx", "-y", version === undefined ? id : `${id}@${version}`],
  pypi: (id, version) => ["uvx", version === undefined ? id : `${id}==${version}`],
  oci: (id) => ["docker", "run", "-i", "--rm", id],
  nuget: (id, version) => ["dnx", version === undefined ? id : `${id}@${version}`, "--yes"]
}

/**
 * A list of `{ name, value?, variables? }` (environment variables, headers) as a record: a value
 * is filled from its variables, a missing one refers to the variable `variableOf(name)` names.
 */
const namedValuesOf = (list: unknown, variableOf: (name: string) => string): Record<string, string> =>
  Object.fromEntries(
    (Array.isArray(list) ? list.filter(Predicate.isRecord) : []).flatMap((item) =>
      typeof item.name === "string"
        ? [[
          item.name,
          typeof item.value === "string"
            ? template(item.value, item.variables)
            : reference(variableOf(item.name), item)
        ]]
        : []
    )
  )

const envOf = (list: unknown) => namedValuesOf(list, (name) => name)

const headersOf = (list: unknown) => namedValuesOf(list, variableName)

const packageEntry = (pkg: Record<string, unknown>): Record<string, unknown> | string => {
  const type = String(pkg.registryType ?? "")
  const launcher = launchers[type]
  if (launcher === undefined || typeof pkg.identifier !== "string") {
    return `package ${JSON.stringify(pkg.identifier)}: registry type ${JSON.stringify(type)} cannot be launched here`
  }
  const transport = Predicate.isRecord(pkg.transport) ? pkg.transport : { type: "stdio" }
  if (transport.type !== "stdio") {
    return `package ${pkg.identifier}: a ${String(transport.type)} package server is started by hand; use its URL`
  }
  const version = typeof pkg.version === "string" ? pkg.version : undefined
  const [command, ...base] = typeof pkg.runtimeHint === "string" && type === "npm"
    ? [pkg.runtimeHint, ...launcher(pkg.identifier, version).slice(1)]
    : launcher(pkg.identifier, version)
  const runtime = argumentsOf(pkg.runtimeArguments)
  // Runtime arguments go to the launcher, before the package; package arguments after it.
  const args = type === "oci"
    ? [...base.slice(0, -1), ...runtime, ...base.slice(-1), ...argumentsOf(pkg.packageArguments)]
    : [...runtime, ...base, ...argumentsOf(pkg.packageArguments)]
  const env = envOf(pkg.environmentVariables)
  return { type: "stdio", command, args, ...(Object.keys(env).length > 0 ? { env } : {}) }
}

const remoteEntry = (remote: Record<string, unknown>): Record<string, unknown> | string => {
  if (typeof remote.url !== "string") return "a remote without a url"
  const headers = headersOf(remote.headers)
  return {
    type: remote.type === "sse" ? "sse" : "http",
    url: template(remote.url, remote.variables),
    ...(Object.keys(headers).length > 0 ? { headers } : {})
  }
}

/**
 * A `server.json` in the common shape: one entry, named after the server, from its first
 * package that can be launched here, else its first remote.
 *
 * @internal
 */
export const convert = (document: Record<string, unknown>): Converted => {
  const warnings: Array<string> = []
  const name = typeof document.name === "string" ? document.name.split("/").pop()! : "server"
  const packages = Array.isArray(document.packages) ? document.packages.filter(Predicate.isRecord) : []
  const remotes = Array.isArray(document.remotes) ? document.remotes.filter(Predicate.isRecord) : []
  for (const candidate of [...packages.map(packageEntry), ...remotes.map(remoteEntry)]) {
    if (typeof candidate === "string") {
      warnings.push(candidate)
    } else {
      return { document: { mcpServers: { [name]: candidate } }, warnings }
    }
  }
  warnings.push(`"${name}": no package or remote that can be used here`)
  return { document: { mcpServers: {} }, warnings }
}
