/**
 * Everything we check about a schema before handing it to the validator, and about an instance
 * before validating it. All walks are iterative (a hostile document must not overflow the stack)
 * and stop as soon as a limit is passed (a hostile document must not cost more than the limit).
 *
 * @internal
 */
import { resolveIri, toAbsoluteIri } from "@hyperjump/uri"
import * as Predicate from "effect/Predicate"
import type { Dialect, Limits, UnsupportedDialect } from "../../JsonSchema.js"
import { unsupported, type Vocabulary, vocabulary } from "./dialect.js"
import { measure } from "./limits.js"

/** @internal */
export type Analysis =
  | {
    readonly _tag: "Analysed"
    readonly partial: ReadonlyArray<string>
    /** The base URI of the root's keywords (its `$id`, else the registration URI). */
    readonly rootBase: string
    /** Every resource URI of the document. */
    readonly resources: ReadonlyArray<string>
  }
  | { readonly _tag: "Unusable"; readonly reason: string }
  | UnsupportedDialect

/** @internal */
export interface AnalysisContext {
  readonly limits: Limits
  /** The URI the document is registered under; the base of its relative references. */
  readonly rootUri: string
  readonly dialect: Dialect
  /** The dialect of an embedded `$schema`, when we read it. */
  readonly dialectOf: (uri: string) => Dialect | undefined
  /** URIs already taken in the validator's registry (meta-schemas, trusted remotes). */
  readonly isRegistered: (uri: string) => boolean
}

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type JsonObject = { readonly [key: string]: Json }

const isObject = (u: unknown): u is JsonObject => Predicate.isRecord(u)
const unusable = (reason: string) => ({ _tag: "Unusable" as const, reason })

const unescape = (token: string): string => token.replace(/~1/g, "/").replace(/~0/g, "~")

interface Node {
  /** Base URI of the node's own keywords (after its `$id`). */
  readonly base: string
  readonly dialect: Dialect
  readonly children: ReadonlyArray<Json>
  readonly refs: ReadonlyArray<string>
}

interface Resource {
  readonly root: Json
  readonly dialect: Dialect
}

/**
 * Checks size, depth, subschema count, `pattern` lengths, identifiers (`$id`, anchors) and the
 * number of subschemas evaluated once `$ref`s are expanded; lists the annotation-only keywords.
 *
 * @internal
 */
export const analyse = (schema: unknown, ctx: AnalysisContext): Analysis => {
  const { limits } = ctx
  const measured = measure(schema, limits.maxSchemaDepth, limits.maxSchemaLength)
  switch (measured._tag) {
    case "TooDeep":
      return unusable(`the schema is nested deeper than ${limits.maxSchemaDepth} levels (at ${pointer(measured.at)})`)
    case "TooLong":
      return unusable(`the schema is longer than ${limits.maxSchemaLength} characters`)
    case "NotJson":
      return unusable(`the schema is not JSON (at ${pointer(measured.at)})`)
  }
  if (typeof schema !== "boolean" && !isObject(schema)) {
    return unusable("a schema must be an object or a boolean")
  }

  const nodes = new Map<object, Node>()
  const resources = new Map<string, Resource>()
  const anchors = new Map<string, JsonObject>()
  const partial = new Set<string>()
  let subschemas = 0
  let problem: Analysis | undefined

  // Reads one schema object: its identifiers, references, patterns and subschemas. `register`
  // is false for subschemas reached only through a `$ref` into a non-schema location: those are
  // compiled by the validator, but their identifiers are not identifiers.
  const read = (obj: JsonObject, parentBase: string, parentDialect: Dialect, register: boolean): Node => {
    let dialect = parentDialect
    let vocab: Vocabulary = vocabulary(dialect)
    let base = parentBase
    const refOnly = vocab.refOverrides && typeof obj.$ref === "string"
    if (!refOnly) {
      const id = obj.$id
      const declared = obj.$schema
      if (typeof id === "string" && !(vocab.refOverrides && id.startsWith("#"))) {
        if (declared !== undefined && obj !== schema) {
          const embedded = typeof declared === "string" ? ctx.dialectOf(declared) : undefined
          if (embedded === undefined) {
            problem ??= unsupported(typeof declared === "string" ? declared : JSON.stringify(declared))
          } else {
            dialect = embedded
            vocab = vocabulary(dialect)
          }
        }
        const resolved = resolve(id, parentBase)
        if (resolved === undefined) {
          problem ??= unusable(`$id ${JSON.stringify(id.slice(0, 200))} is not a URI reference`)
        } else {
          base = toAbsoluteIri(resolved)
          if (register) {
            if (resources.has(base) && resources.get(base)!.root !== obj) {
              problem ??= unusable(`two subschemas declare the same $id ${JSON.stringify(base)}`)
            } else if (ctx.isRegistered(base)) {
              problem ??= unusable(`$id ${JSON.stringify(base)} collides with a registered meta-schema or document`)
            }
            resources.set(base, { root: obj, dialect })
          }
        }
      }
      if (register) {
        const names: Array<string> = []
        if (typeof id === "string" && vocab.refOverrides && id.startsWith("#")) names.push(id.slice(1))
        if (!vocab.refOverrides && typeof obj.$anchor === "string") names.push(obj.$anchor)
        if (dialect === "2020-12" && typeof obj.$dynamicAnchor === "string") names.push(obj.$dynamicAnchor)
        for (const name of names) {
          const key = `${base}#${name}`
          const existing = anchors.get(key)
          if (existing !== undefined && existing !== obj) {
            problem ??= unusable(`anchor ${JSON.stringify(name)} is declared twice in ${JSON.stringify(base)}`)
          }
          anchors.set(key, obj)
        }
        for (const keyword of vocab.annotationOnly) {
          if (Object.hasOwn(obj, keyword)) partial.add(keyword)
        }
      }
      checkPattern(obj.pattern)
      if (isObject(obj.patternProperties)) {
        for (const key of Object.keys(obj.patternProperties)) checkPattern(key)
      }
    }

    const children: Array<Json> = []
    const refs: Array<string> = []
    for (const keyword of refOnly ? ["$ref"] : vocab.refs) {
      const ref = obj[keyword]
      if (typeof ref === "string") refs.push(ref)
    }
    if (!refOnly) {
      for (const keyword of Object.keys(obj)) {
        const value = obj[keyword]!
        if (vocab.single.has(keyword) && isSchema(value)) {
          children.push(value)
        } else if (vocab.array.has(keyword) && Array.isArray(value)) {
          for (const item of value) if (isSchema(item)) children.push(item)
        } else if (vocab.map.has(keyword) && isObject(value)) {
          for (const key of Object.keys(value)) {
            if (isSchema(value[key])) children.push(value[key]!)
          }
        }
      }
    }
    return { base, dialect, children, refs }
  }

  const checkPattern = (pattern: Json | undefined): void => {
    if (typeof pattern === "string" && pattern.length > limits.maxPatternLength) {
      problem ??= unusable(`a pattern is longer than ${limits.maxPatternLength} characters`)
    }
  }

  const nodeOf = (obj: JsonObject, parentBase: string, parentDialect: Dialect, register: boolean): Node => {
    let node = nodes.get(obj)
    if (node === undefined) {
      subschemas++
      node = read(obj, parentBase, parentDialect, register)
      nodes.set(obj, node)
    }
    return node
  }

  // Pass 1: every subschema in a schema position, breadth first, registering identifiers.
  resources.set(ctx.rootUri, { root: schema as Json, dialect: ctx.dialect })
  if (isObject(schema)) {
    const queue: Array<{ readonly obj: JsonObject; readonly base: string; readonly dialect: Dialect }> = [{
      obj: schema,
      base: ctx.rootUri,
      dialect: ctx.dialect
    }]
    for (let i = 0; i < queue.length; i++) {
      const { base, dialect, obj } = queue[i]!
      const node = nodeOf(obj, base, dialect, true)
      if (subschemas > limits.maxSubschemas) {
        return unusable(`the schema has more than ${limits.maxSubschemas} subschemas`)
      }
      for (const child of node.children) {
        if (isObject(child) && !nodes.has(child)) queue.push({ obj: child, base: node.base, dialect: node.dialect })
        else if (!isObject(child)) subschemas++
      }
      if (problem !== undefined) return problem
    }
  }
  if (problem !== undefined) return problem
  if (subschemas > limits.maxSubschemas) return unusable(`the schema has more than ${limits.maxSubschemas} subschemas`)

  // Pass 2 (`expansion`): the subschemas evaluated with every reference expanded in place; a
  // reference's target is read on first sight.
  const target = (ref: string, from: Node): JsonObject | undefined => {
    const uri = resolve(ref, from.base)
    if (uri === undefined) return undefined
    const hash = uri.indexOf("#")
    const document = hash === -1 ? uri : uri.slice(0, hash)
    const fragment = hash === -1 ? "" : decodeFragment(uri.slice(hash + 1))
    const resource = resources.get(document)
    if (resource === undefined || fragment === undefined) return undefined
    if (fragment === "" || fragment.startsWith("/")) {
      let value: Json | undefined = resource.root
      for (const token of fragment === "" ? [] : fragment.slice(1).split("/")) {
        const key = unescape(token)
        if (Array.isArray(value)) value = /^(0|[1-9][0-9]*)$/.test(key) ? value[Number(key)] : undefined
        else if (isObject(value)) value = Object.hasOwn(value, key) ? value[key] : undefined
        else value = undefined
        if (value === undefined) return undefined
      }
      if (!isObject(value)) return undefined
      if (!nodes.has(value)) {
        nodeOf(value, document, resource.dialect, false)
      }
      return value
    }
    return anchors.get(`${document}#${fragment}`)
  }

  if (isObject(schema)) {
    const limit = limits.maxRefExpansion
    const total = expansion(schema, nodes.get(schema)!, limit, {
      node: (child, from) => nodes.get(child) ?? nodeOf(child, from.base, from.dialect, false),
      target,
      tooMany: () => subschemas > limits.maxSubschemas
    })
    if (total === "TooMany") return unusable(`the schema has more than ${limits.maxSubschemas} subschemas`)
    if (total > limit) return unusable(`the schema expands to more than ${limit} subschemas through $ref`)
  }
  if (problem !== undefined) return problem

  return {
    _tag: "Analysed",
    partial: [...partial].sort(),
    rootBase: isObject(schema) ? nodes.get(schema)!.base : ctx.rootUri,
    resources: [...resources.keys()]
  }
}

/**
 * Pass 2 of `analyse`: the number of subschemas evaluated when every reference is expanded in
 * place, with each recursion counted once (recursion is bounded by the instance, and by the time
 * budget); past `limit` it stops counting. Walks with an explicit stack: a schema's depth is
 * bounded, its expansion is not.
 */
const expansion = (
  root: JsonObject,
  rootNode: Node,
  limit: number,
  walk: {
    /** The node of a subschema, read on first sight (reading may raise the subschema count). */
    readonly node: (child: JsonObject, from: Node) => Node
    readonly target: (ref: string, from: Node) => JsonObject | undefined
    readonly tooMany: () => boolean
  }
): number | "TooMany" => {
  const expanded = new Map<object, number>()
  const onPath = new Set<object>()
  interface Frame {
    readonly obj: JsonObject
    readonly node: Node
    next: number
    total: number
  }
  const edges = (node: Node): number => node.children.length + node.refs.length
  const stack: Array<Frame> = [{ obj: root, node: rootNode, next: 0, total: 1 }]
  onPath.add(root)
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!
    if (frame.next < edges(frame.node)) {
      const index = frame.next++
      const child = index < frame.node.children.length
        ? frame.node.children[index]
        : walk.target(frame.node.refs[index - frame.node.children.length]!, frame.node)
      if (walk.tooMany()) return "TooMany"
      if (!isObject(child)) {
        frame.total += 1
      } else if (expanded.has(child)) {
        frame.total += expanded.get(child)!
      } else if (onPath.has(child)) {
        frame.total += 1
      } else {
        const node = walk.node(child, frame.node)
        onPath.add(child)
        stack.push({ obj: child, node, next: 0, total: 1 })
      }
      if (frame.total > limit) break
    } else {
      stack.pop()
      onPath.delete(frame.obj)
      expanded.set(frame.obj, frame.total)
      if (stack.length > 0) stack[stack.length - 1]!.total += frame.total
    }
  }
  return stack.length > 0 ? limit + 1 : expanded.get(root)!
}

const isSchema = (u: Json | undefined): u is Json => typeof u === "boolean" || isObject(u)

const resolve = (reference: string, base: string): string | undefined => {
  try {
    return resolveIri(reference, base)
  } catch {
    return undefined
  }
}

const decodeFragment = (fragment: string): string | undefined => {
  try {
    return decodeURIComponent(fragment)
  } catch {
    return undefined
  }
}

const pointer = (path: string): string => (path === "" ? "the root" : path)
