/**
 * The dialects we read: their `$schema` spellings and the keywords that hold subschemas.
 *
 * @internal
 */
import * as Predicate from "effect/Predicate"
import type { Dialect, DialectOutcome, UnsupportedDialect } from "../../JsonSchema.js"

/** @internal */
export const supportedDialects: ReadonlyArray<Dialect> = ["2020-12", "2019-09", "draft-07"]

/** @internal */
export const dialectUris: { readonly [D in Dialect]: string } = {
  "2020-12": "https://json-schema.org/draft/2020-12/schema",
  "2019-09": "https://json-schema.org/draft/2019-09/schema",
  "draft-07": "http://json-schema.org/draft-07/schema#"
}

const spellings = new Map<string, Dialect>([
  ["https://json-schema.org/draft/2020-12/schema", "2020-12"],
  ["https://json-schema.org/draft/2020-12/schema#", "2020-12"],
  ["https://json-schema.org/draft/2019-09/schema", "2019-09"],
  ["https://json-schema.org/draft/2019-09/schema#", "2019-09"],
  ["http://json-schema.org/draft-07/schema", "draft-07"],
  ["http://json-schema.org/draft-07/schema#", "draft-07"],
  // Often written by hand; the document is the same.
  ["https://json-schema.org/draft-07/schema", "draft-07"],
  ["https://json-schema.org/draft-07/schema#", "draft-07"]
])

/** The dialect of a `$schema` value, when it is one of ours. @internal */
export const knownDialect = (uri: string): Dialect | undefined => spellings.get(uri)

/** @internal */
export const unsupported = (dialect: string): UnsupportedDialect => ({
  _tag: "UnsupportedDialect",
  dialect,
  supported: supportedDialects.map((d) => dialectUris[d])
})

/** @internal */
export const dialectOf = (schema: unknown, defaultDialect: Dialect = "2020-12"): DialectOutcome => {
  if (!Predicate.isRecord(schema) || !Object.hasOwn(schema, "$schema")) {
    return { _tag: "Supported", dialect: defaultDialect }
  }
  const declared = schema.$schema
  if (typeof declared !== "string") return unsupported(safeJson(declared))
  const dialect = knownDialect(declared)
  return dialect === undefined ? unsupported(declared) : { _tag: "Supported", dialect }
}

const safeJson = (u: unknown): string => {
  try {
    return String(JSON.stringify(u)).slice(0, 200)
  } catch {
    return typeof u
  }
}

/** Where the subschemas of a schema object are, per dialect. @internal */
export interface Vocabulary {
  /** Keywords whose value is one subschema. */
  readonly single: ReadonlySet<string>
  /** Keywords whose value is an array of subschemas. */
  readonly array: ReadonlySet<string>
  /** Keywords whose value is an object of subschemas. */
  readonly map: ReadonlySet<string>
  /** Keywords whose string value is a reference. */
  readonly refs: ReadonlyArray<string>
  /** `$ref` makes its siblings ignored (draft-07). */
  readonly refOverrides: boolean
  /** Keywords that annotate only: their presence makes validation partial. */
  readonly annotationOnly: ReadonlyArray<string>
}

const common = ["additionalProperties", "contains", "propertyNames", "not", "if", "then", "else"]

const vocabularies: { readonly [D in Dialect]: Vocabulary } = {
  "draft-07": {
    single: new Set([...common, "additionalItems", "items"]),
    array: new Set(["allOf", "anyOf", "oneOf", "items"]),
    map: new Set(["properties", "patternProperties", "definitions", "dependencies"]),
    refs: ["$ref"],
    refOverrides: true,
    annotationOnly: ["format", "contentEncoding", "contentMediaType"]
  },
  "2019-09": {
    single: new Set([
      ...common,
      "additionalItems",
      "items",
      "unevaluatedItems",
      "unevaluatedProperties",
      "contentSchema"
    ]),
    array: new Set(["allOf", "anyOf", "oneOf", "items"]),
    map: new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]),
    refs: ["$ref", "$recursiveRef"],
    refOverrides: false,
    annotationOnly: ["format", "contentEncoding", "contentMediaType", "contentSchema"]
  },
  "2020-12": {
    single: new Set([...common, "items", "unevaluatedItems", "unevaluatedProperties", "contentSchema"]),
    array: new Set(["allOf", "anyOf", "oneOf", "prefixItems"]),
    map: new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]),
    refs: ["$ref", "$dynamicRef"],
    refOverrides: false,
    annotationOnly: ["format", "contentEncoding", "contentMediaType", "contentSchema"]
  }
}

/** @internal */
export const vocabulary = (dialect: Dialect): Vocabulary => vocabularies[dialect]
