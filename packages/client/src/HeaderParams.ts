/**
 * Tool parameters mirrored into HTTP headers (2026-07-28 Streamable HTTP, SEP-2243): checking the
 * `x-mcp-header` annotations of a tool's `inputSchema`, rendering `Mcp-Param-{Name}` headers from
 * call arguments, and the header value encoding shared with `Mcp-Name`.
 *
 * Everything here is pure and platform-agnostic (no `Buffer`); schemas and arguments are treated as
 * hostile input and never make these functions throw.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"

/**
 * The JSON type of an annotated parameter, which decides how its value is rendered.
 *
 * @since 0.1.0
 * @category models
 */
export type HeaderParamType = "string" | "integer" | "boolean"

/**
 * One valid `x-mcp-header` annotation: the header name suffix, the chain of `properties` keys from
 * the schema root to the annotated property, and its declared type.
 *
 * @example
 * import type { HeaderParam } from "@mcp-effect/client/HeaderParams"
 *
 * // { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } }
 * const param: HeaderParam = { header: "Region", path: ["region"], type: "string" }
 *
 * @since 0.1.0
 * @category models
 */
export interface HeaderParam {
  /** The `x-mcp-header` value; the header sent is `Mcp-Param-{header}`. */
  readonly header: string
  /** Property keys from the root of the arguments object. */
  readonly path: ReadonlyArray<string>
  readonly type: HeaderParamType
}

/**
 * The outcome of {@link validate}. An invalid tool MUST be left out of `tools/list` on HTTP.
 *
 * @since 0.1.0
 * @category models
 */
export type ValidationResult =
  | { readonly valid: true; readonly params: ReadonlyArray<HeaderParam> }
  | { readonly valid: false; readonly reason: string }

/**
 * `Mcp-Param-*` header names to encoded values.
 *
 * @since 0.1.0
 * @category models
 */
export type ParamHeaders = { readonly [name: `Mcp-Param-${string}`]: string }

/**
 * The outcome of {@link render}: the headers, or why the arguments cannot be mirrored. Tell the two
 * apart with `"error" in result` (no header is named `error`).
 *
 * @since 0.1.0
 * @category models
 */
export type RenderResult = ParamHeaders | { readonly error: string }

/**
 * Nesting bound for the schema walk: a schema nested deeper makes the tool invalid, since an
 * annotation could hide below the bound.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxSchemaDepth: number = 64

/**
 * Bound on the object keys and array elements visited in one schema; a larger schema makes the
 * tool invalid.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxSchemaEntries: number = 100_000

// -----------------------------------------------------------------------------
// encoding
// -----------------------------------------------------------------------------

const PARAM_PREFIX = "Mcp-Param-"
const SENTINEL_PREFIX = "=?base64?"
const SENTINEL_SUFFIX = "?="
const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

const utf8 = new TextEncoder()

const base64 = (bytes: Uint8Array): string => {
  const out: Array<string> = []
  const a = BASE64_ALPHABET
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2]
    out.push(a.charAt((n >> 18) & 63), a.charAt((n >> 12) & 63), a.charAt((n >> 6) & 63), a.charAt(n & 63))
  }
  const rest = bytes.length - i
  if (rest === 1) {
    const n = bytes[i] << 16
    out.push(a.charAt((n >> 18) & 63), a.charAt((n >> 12) & 63), "==")
  } else if (rest === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8)
    out.push(a.charAt((n >> 18) & 63), a.charAt((n >> 12) & 63), a.charAt((n >> 6) & 63), "=")
  }
  return out.join("")
}

const needsEncoding = (value: string): boolean => {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    // Tab is a legal field-value character, but the conformance referee expects any control
    // character (tab included) to be encoded, and servers must accept an encoded value anyway.
    if (c < 0x20 || c > 0x7e) return true
  }
  if (value.startsWith(" ") || value.endsWith(" ")) return true
  return value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX)
}

/**
 * Encodes a header value for `Mcp-Param-{Name}` and `Mcp-Name`. Printable ASCII (0x20–0x7E) with no
 * leading or trailing space is sent as-is; anything else — non-ASCII, any control character
 * including tab, leading/trailing whitespace, or a plain value that itself looks like
 * `=?base64?…?=` — is sent as `=?base64?{base64 of the UTF-8 bytes}?=`.
 *
 * @example
 * import { encodeValue } from "@mcp-effect/client/HeaderParams"
 *
 * encodeValue("us-west1") // "us-west1"
 * encodeValue("Hello, 世界") // "=?base64?SGVsbG8sIOS4lueVjA==?="
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeValue = (value: string): string =>
  needsEncoding(value) ? `${SENTINEL_PREFIX}${base64(utf8.encode(value))}${SENTINEL_SUFFIX}` : value

/**
 * Whether a header name is in the `Mcp-Param-` namespace (case-insensitive). Such headers are
 * reserved for mirrored tool parameters, so user-configured ones are dropped on modern requests.
 *
 * @since 0.1.0
 * @category guards
 */
export const isParamHeader = (name: string): boolean =>
  name.length >= PARAM_PREFIX.length && name.slice(0, PARAM_PREFIX.length).toLowerCase() === "mcp-param-"

// -----------------------------------------------------------------------------
// validation
// -----------------------------------------------------------------------------

const ANNOTATION = "x-mcp-header"

// RFC 9110 §5.6.2: token = 1*tchar
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

// Keywords whose value maps names to subschemas; the names are not keywords.
const SCHEMA_MAPS: ReadonlySet<string> = new Set([
  "$defs",
  "definitions",
  "patternProperties",
  "dependentSchemas",
  "dependencies"
])

// Keywords whose value is instance data, not schema: an `x-mcp-header` key in there is no annotation.
const DATA_KEYWORDS: ReadonlySet<string> = new Set(["const", "enum", "default", "examples"])

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key)

const pointer = (location: ReadonlyArray<string>): string =>
  location.length === 0 ? "/" : location.map((k) => "/" + k.replace(/~/g, "~0").replace(/\//g, "~1")).join("")

const describe = (u: unknown): string => (u === null ? "null" : Array.isArray(u) ? "array" : typeof u)

const describeType = (type: unknown): string =>
  type === undefined
    ? "(none)"
    : typeof type === "string"
    ? JSON.stringify(type)
    : Array.isArray(type) && type.length <= 8 && type.every((t) => typeof t === "string")
    ? JSON.stringify(type)
    : describe(type)

const paramType = (type: unknown): HeaderParamType | undefined => {
  if (type === "string" || type === "integer" || type === "boolean") return type
  // A nullable primitive (`["string", "null"]`): null arguments simply omit the header.
  if (Array.isArray(type) && type.length === 2 && type.includes("null")) {
    const other = type[0] === "null" ? type[1] : type[0]
    if (other === "string" || other === "integer" || other === "boolean") return other
  }
  return undefined
}

class Invalid {
  constructor(readonly reason: string) {}
}

interface WalkState {
  entries: number
  readonly ancestors: Set<object>
  readonly seen: Map<string, string>
  readonly params: Array<HeaderParam>
}

const checkAnnotation = (
  node: Record<string, unknown>,
  location: ReadonlyArray<string>,
  path: ReadonlyArray<string> | undefined,
  state: WalkState
): Invalid | undefined => {
  const value = node[ANNOTATION]
  const at = pointer(location)
  if (path === undefined || path.length === 0) {
    return new Invalid(
      path === undefined
        ? `x-mcp-header at ${at} is not on a property reachable from the root through "properties" keys only`
        : `x-mcp-header at ${at} is on the schema root, not on a parameter`
    )
  }
  if (typeof value !== "string") return new Invalid(`x-mcp-header at ${at} must be a string, got ${describe(value)}`)
  if (value.length === 0) return new Invalid(`x-mcp-header at ${at} must not be empty`)
  if (!TOKEN.test(value)) {
    return new Invalid(`x-mcp-header ${JSON.stringify(value)} at ${at} is not an RFC 9110 token`)
  }
  const type = paramType(node.type)
  if (type === undefined) {
    return new Invalid(
      `x-mcp-header ${JSON.stringify(value)} at ${at} is on a property of type ${
        describeType(node.type)
      }; only "string", "integer" and "boolean" are allowed`
    )
  }
  const key = value.toLowerCase()
  const previous = state.seen.get(key)
  if (previous !== undefined) {
    return new Invalid(
      `x-mcp-header ${JSON.stringify(value)} at ${at} duplicates (case-insensitively) the one at ${previous}`
    )
  }
  state.seen.set(key, at)
  state.params.push({ header: value, path, type })
  return undefined
}

// `path` is the chain of `properties` keys when the node is statically reachable, else undefined.
const walk = (
  node: unknown,
  location: Array<string>,
  path: ReadonlyArray<string> | undefined,
  depth: number,
  state: WalkState
): Invalid | undefined => {
  if (typeof node !== "object" || node === null) return undefined
  if (depth > maxSchemaDepth) return new Invalid(`schema is nested deeper than ${maxSchemaDepth} levels`)
  if (state.ancestors.has(node)) return new Invalid(`schema contains a cycle at ${pointer(location)}`)
  state.ancestors.add(node)
  const result = Array.isArray(node)
    ? walkArray(node, location, depth, state)
    : walkSchema(node as Record<string, unknown>, location, path, depth, state)
  state.ancestors.delete(node)
  return result
}

const walkArray = (
  node: ReadonlyArray<unknown>,
  location: Array<string>,
  depth: number,
  state: WalkState
): Invalid | undefined => {
  state.entries += node.length
  if (state.entries > maxSchemaEntries) return new Invalid(`schema has more than ${maxSchemaEntries} entries`)
  for (let i = 0; i < node.length; i++) {
    location.push(String(i))
    const invalid = walk(node[i], location, undefined, depth + 1, state)
    location.pop()
    if (invalid) return invalid
  }
  return undefined
}

const walkMap = (
  map: Record<string, unknown>,
  location: Array<string>,
  path: ReadonlyArray<string> | undefined,
  depth: number,
  state: WalkState
): Invalid | undefined => {
  if (state.ancestors.has(map)) return new Invalid(`schema contains a cycle at ${pointer(location)}`)
  state.ancestors.add(map)
  const keys = Object.keys(map)
  state.entries += keys.length
  let invalid: Invalid | undefined
  if (state.entries > maxSchemaEntries) {
    invalid = new Invalid(`schema has more than ${maxSchemaEntries} entries`)
  } else {
    for (const key of keys) {
      location.push(key)
      invalid = walk(map[key], location, path === undefined ? undefined : [...path, key], depth + 1, state)
      location.pop()
      if (invalid) break
    }
  }
  state.ancestors.delete(map)
  return invalid
}

const walkSchema = (
  node: Record<string, unknown>,
  location: Array<string>,
  path: ReadonlyArray<string> | undefined,
  depth: number,
  state: WalkState
): Invalid | undefined => {
  if (hasOwn(node, ANNOTATION)) {
    const invalid = checkAnnotation(node, location, path, state)
    if (invalid) return invalid
  }
  const keys = Object.keys(node)
  state.entries += keys.length
  if (state.entries > maxSchemaEntries) return new Invalid(`schema has more than ${maxSchemaEntries} entries`)
  for (const key of keys) {
    if (key === ANNOTATION || DATA_KEYWORDS.has(key)) continue
    const value = node[key]
    if (typeof value !== "object" || value === null) continue
    location.push(key)
    let invalid: Invalid | undefined
    if (key === "properties" && Predicate.isRecord(value)) {
      // The only step that keeps a property statically reachable.
      invalid = walkMap(value, location, path, depth + 1, state)
    } else if (SCHEMA_MAPS.has(key) && Predicate.isRecord(value)) {
      invalid = walkMap(value, location, undefined, depth + 1, state)
    } else {
      // items, prefixItems, additionalProperties, anyOf/oneOf/allOf/not, if/then/else, unknown
      // keywords…: anything found below is off the `properties` chain.
      invalid = walk(value, location, undefined, depth + 1, state)
    }
    location.pop()
    if (invalid) return invalid
  }
  return undefined
}

/**
 * Checks every `x-mcp-header` annotation in a tool's `inputSchema` and collects the parameters to
 * mirror. One bad annotation makes the whole tool invalid; on HTTP the caller drops such a tool from
 * `tools/list` and logs the reason (which names the offending location as a JSON pointer).
 *
 * An annotation is valid when its value is a non-empty RFC 9110 token, unique case-insensitively in
 * the schema, on a property whose `type` is `"string"`, `"integer"` or `"boolean"` (or that type
 * with `"null"`, e.g. `["string", "null"]`), reached from the root through `properties` keys only.
 * An annotation anywhere else — the root, under `items`, `anyOf`/`oneOf`/`allOf`/`not`,
 * `if`/`then`/`else`, `$defs`/`definitions`, `additionalProperties`, `patternProperties`, unknown
 * keywords — is invalid; `$ref` is never followed. Keys inside `const`, `enum`, `default` and
 * `examples` are instance data, not annotations. The walk is bounded ({@link maxSchemaDepth},
 * {@link maxSchemaEntries}) and cycle-safe; exceeding a bound makes the tool invalid.
 *
 * @since 0.1.0
 * @category validation
 */
export const validate = (inputSchema: unknown): ValidationResult => {
  const state: WalkState = { entries: 0, ancestors: new Set(), seen: new Map(), params: [] }
  const invalid = walk(inputSchema, [], Predicate.isRecord(inputSchema) ? [] : undefined, 0, state)
  return invalid ? { valid: false, reason: invalid.reason } : { valid: true, params: state.params }
}

// -----------------------------------------------------------------------------
// rendering
// -----------------------------------------------------------------------------

const lookup = (args: unknown, path: ReadonlyArray<string>): unknown => {
  let current = args
  for (const key of path) {
    // Own properties of plain objects only: arrays have no named properties in JSON, and
    // inherited keys (`constructor`, `__proto__`) are not arguments.
    if (!Predicate.isRecord(current) || !hasOwn(current, key)) return undefined
    current = current[key]
  }
  return current
}

const renderValue = (param: HeaderParam, value: unknown): string | Invalid => {
  const where = `argument ${param.path.join(".")} (Mcp-Param-${param.header})`
  switch (param.type) {
    case "string":
      if (typeof value === "string") return value
      break
    case "boolean":
      if (typeof value === "boolean") return value ? "true" : "false"
      break
    case "integer":
      if (typeof value === "number") {
        if (!Number.isInteger(value)) return new Invalid(`${where} must be an integer, got ${value}`)
        if (!Number.isSafeInteger(value)) {
          return new Invalid(`${where} is outside the safe integer range ±(2^53−1): ${value}`)
        }
        return String(value)
      }
      break
  }
  return new Invalid(`${where} must be a ${param.type}, got ${describe(value)}`)
}

/**
 * Renders the `Mcp-Param-{header}` headers of a `tools/call` from its arguments, values encoded with
 * {@link encodeValue}. A parameter whose value is absent or `null` at its path gets no header. A
 * value of the wrong JSON type, a non-integer for an integer parameter, or an integer outside
 * ±(2^53−1) is an error: the arguments break the tool's `inputSchema`, and sending them without the
 * header would only earn a `-32020` HeaderMismatch, so the caller fails the call instead.
 *
 * @example
 * import { render } from "@mcp-effect/client/HeaderParams"
 *
 * const result = render([{ header: "Region", path: ["region"], type: "string" }], { region: "us-west1" })
 * // { "Mcp-Param-Region": "us-west1" }
 * if ("error" in result) console.warn(result.error)
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (params: ReadonlyArray<HeaderParam>, args: unknown): RenderResult => {
  const headers: Record<`Mcp-Param-${string}`, string> = {}
  for (const param of params) {
    const value = lookup(args, param.path)
    if (value === undefined || value === null) continue
    const rendered = renderValue(param, value)
    if (rendered instanceof Invalid) return { error: rendered.reason }
    headers[`${PARAM_PREFIX}${param.header}`] = encodeValue(rendered)
  }
  return headers
}
