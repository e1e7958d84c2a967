import { assert, describe, it } from "@effect/vitest"
import * as HeaderParams from "@mcp-effect/client/HeaderParams"

const decode = (encoded: string): string => {
  const match = /^=\?base64\?(.*)\?=$/s.exec(encoded)
  if (match === null) return encoded
  const binary = atob(match[1])
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)))
}

const isEncoded = (value: string) => value.startsWith("=?base64?") && value.endsWith("?=")

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  ...extra
})

const paramsOf = (schema: unknown): ReadonlyArray<HeaderParams.HeaderParam> => {
  const result = HeaderParams.validate(schema)
  if (!result.valid) return assert.fail(`expected a valid schema, got: ${result.reason}`)
  return result.params
}

const reasonOf = (schema: unknown): string => {
  const result = HeaderParams.validate(schema)
  if (result.valid) return assert.fail(`expected an invalid schema, got params ${JSON.stringify(result.params)}`)
  return result.reason
}

const headersOf = (params: ReadonlyArray<HeaderParams.HeaderParam>, args: unknown): Record<string, string> => {
  const result = HeaderParams.render(params, args)
  if ("error" in result) return assert.fail(`expected headers, got error: ${result.error}`)
  return result
}

const errorOf = (params: ReadonlyArray<HeaderParams.HeaderParam>, args: unknown): string => {
  const result = HeaderParams.render(params, args)
  if (!("error" in result)) return assert.fail(`expected an error, got headers ${JSON.stringify(result)}`)
  return result.error
}

describe("HeaderParams", () => {
  describe("encodeValue", () => {
    it("sends plain printable ASCII as-is", () => {
      for (const value of ["us-west1", "us west 1", "a", "", "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "=?base64?x"]) {
        assert.strictEqual(HeaderParams.encodeValue(value), value)
      }
    })

    it("matches the spec's encoding examples", () => {
      assert.strictEqual(HeaderParams.encodeValue("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=")
      assert.strictEqual(HeaderParams.encodeValue(" padded "), "=?base64?IHBhZGRlZCA=?=")
      assert.strictEqual(HeaderParams.encodeValue("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=")
      assert.strictEqual(HeaderParams.encodeValue("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")
    })

    it("encodes leading or trailing spaces", () => {
      for (const value of [" us-west1", "us-west1 ", " ", "  "]) {
        const encoded = HeaderParams.encodeValue(value)
        assert.isTrue(isEncoded(encoded), value)
        assert.strictEqual(decode(encoded), value)
      }
    })

    it("encodes every control character, tab and DEL included", () => {
      for (const value of ["\tindented", "a\tb", "line1\r\nline2", "\u0000", "x\u001fy", "del\u007f"]) {
        const encoded = HeaderParams.encodeValue(value)
        assert.isTrue(isEncoded(encoded), JSON.stringify(value))
        assert.strictEqual(decode(encoded), value)
      }
    })

    it("encodes a plain value that looks like the sentinel", () => {
      for (const value of ["=?base64?SGVsbG8=?=", "=?base64??=", "=?base64?="]) {
        const encoded = HeaderParams.encodeValue(value)
        assert.notStrictEqual(encoded, value)
        assert.isTrue(isEncoded(encoded))
        assert.strictEqual(decode(encoded), value)
      }
    })

    it("round-trips non-ASCII text through UTF-8 base64", () => {
      const values = ["é", "Région", "日本語テキスト", "emoji 🎉 and 𝄞", "\u00a0nbsp", "ü", "ü1", "üü", "a\u00e9bc"]
      for (const value of values) {
        const encoded = HeaderParams.encodeValue(value)
        assert.isTrue(isEncoded(encoded), value)
        assert.match(encoded.slice(9, -2), /^[A-Za-z0-9+/]*={0,2}$/)
        assert.strictEqual(encoded.slice(9, -2).length % 4, 0)
        assert.strictEqual(decode(encoded), value)
      }
    })

    it("produces base64 identical to Node's for every padding length", () => {
      for (let length = 0; length < 40; length++) {
        const value = "é" + "x".repeat(length) + "\u{1F600}".repeat(length % 3)
        const expected = Buffer.from(value, "utf-8").toString("base64")
        assert.strictEqual(HeaderParams.encodeValue(value), `=?base64?${expected}?=`)
      }
    })
  })

  describe("isParamHeader", () => {
    it("recognises the Mcp-Param- namespace case-insensitively", () => {
      for (const name of ["Mcp-Param-Region", "mcp-param-region", "MCP-PARAM-X", "Mcp-Param-"]) {
        assert.isTrue(HeaderParams.isParamHeader(name), name)
      }
    })

    it("rejects other headers", () => {
      for (const name of ["Mcp-Method", "Mcp-Name", "Mcp-Param", "X-Mcp-Param-Region", "Authorization", ""]) {
        assert.isFalse(HeaderParams.isParamHeader(name), name)
      }
    })
  })

  describe("validate", () => {
    it("accepts a schema without annotations", () => {
      assert.deepStrictEqual(HeaderParams.validate({ type: "object" }), { valid: true, params: [] })
      assert.deepStrictEqual(HeaderParams.validate(obj({ a: { type: "string" } })), { valid: true, params: [] })
      assert.deepStrictEqual(HeaderParams.validate(true), { valid: true, params: [] })
      assert.deepStrictEqual(HeaderParams.validate(undefined), { valid: true, params: [] })
    })

    it("collects string, integer and boolean parameters in schema order", () => {
      const schema = obj({
        region: { type: "string", "x-mcp-header": "Region" },
        priority: { type: "integer", "x-mcp-header": "Priority" },
        verbose: { type: "boolean", "x-mcp-header": "Verbose" },
        query: { type: "string" }
      })
      assert.deepStrictEqual(paramsOf(schema), [
        { header: "Region", path: ["region"], type: "string" },
        { header: "Priority", path: ["priority"], type: "integer" },
        { header: "Verbose", path: ["verbose"], type: "boolean" }
      ])
    })

    it("accepts every tchar in the header name", () => {
      const header = "!#$%&'*+-.^_`|~09AZaz"
      assert.deepStrictEqual(paramsOf(obj({ a: { type: "string", "x-mcp-header": header } })), [
        { header, path: ["a"], type: "string" }
      ])
    })

    it("rejects header names that are not RFC 9110 tokens", () => {
      for (
        const header of ["My Region", "Region:Primary", "Région", "Region\t1", "a\r\nb", "a\n", "(x)", "a/b", "a\"b"]
      ) {
        assert.include(reasonOf(obj({ v: { type: "string", "x-mcp-header": header } })), "token", header)
      }
    })

    it("rejects an empty or non-string header name", () => {
      assert.include(reasonOf(obj({ v: { type: "string", "x-mcp-header": "" } })), "empty")
      for (const header of [null, 1, true, ["Region"], { name: "Region" }]) {
        assert.include(reasonOf(obj({ v: { type: "string", "x-mcp-header": header } })), "must be a string")
      }
    })

    it("rejects duplicate header names, case-insensitively", () => {
      const same = obj({
        a: { type: "string", "x-mcp-header": "Region" },
        b: { type: "string", "x-mcp-header": "Region" }
      })
      assert.include(reasonOf(same), "duplicates")
      const diff = obj({
        a: { type: "string", "x-mcp-header": "MyField" },
        b: { type: "integer", "x-mcp-header": "myfield" }
      })
      assert.include(reasonOf(diff), "duplicates")
      const nested = obj({
        a: { type: "string", "x-mcp-header": "Region" },
        b: obj({ c: { type: "string", "x-mcp-header": "REGION" } })
      })
      assert.include(reasonOf(nested), "duplicates")
    })

    it("rejects non-primitive and number types", () => {
      for (const type of ["number", "object", "array", "null", undefined, ["string", "integer"], ["number", "null"]]) {
        const property = type === undefined ? { "x-mcp-header": "X" } : { type, "x-mcp-header": "X" }
        assert.include(reasonOf(obj({ v: property })), "only \"string\", \"integer\" and \"boolean\"", String(type))
      }
    })

    it("accepts a nullable primitive type", () => {
      assert.deepStrictEqual(paramsOf(obj({ v: { type: ["string", "null"], "x-mcp-header": "V" } })), [
        { header: "V", path: ["v"], type: "string" }
      ])
      assert.deepStrictEqual(paramsOf(obj({ v: { type: ["null", "integer"], "x-mcp-header": "V" } })), [
        { header: "V", path: ["v"], type: "integer" }
      ])
    })

    it("follows nested properties chains", () => {
      const schema = obj({
        tenant: obj({
          location: obj({ region: { type: "string", "x-mcp-header": "Region" } }),
          id: { type: "integer", "x-mcp-header": "Tenant-Id" }
        })
      })
      assert.deepStrictEqual(paramsOf(schema), [
        { header: "Region", path: ["tenant", "location", "region"], type: "string" },
        { header: "Tenant-Id", path: ["tenant", "id"], type: "integer" }
      ])
    })

    it("treats keyword-like property names as plain names", () => {
      const schema = obj({
        items: { type: "string", "x-mcp-header": "Items" },
        properties: obj({ anyOf: { type: "boolean", "x-mcp-header": "AnyOf" } }),
        "x-mcp-header": { type: "string", "x-mcp-header": "Self" }
      })
      assert.deepStrictEqual(paramsOf(schema), [
        { header: "Items", path: ["items"], type: "string" },
        { header: "AnyOf", path: ["properties", "anyOf"], type: "boolean" },
        { header: "Self", path: ["x-mcp-header"], type: "string" }
      ])
    })

    it("rejects an annotation on the root", () => {
      assert.include(reasonOf({ type: "object", "x-mcp-header": "Root" }), "schema root")
    })

    it("rejects annotations off the properties chain", () => {
      const annotated = { type: "string", "x-mcp-header": "X" }
      const cases: Record<string, unknown> = {
        items: obj({ list: { type: "array", items: annotated } }),
        prefixItems: obj({ list: { type: "array", prefixItems: [annotated] } }),
        itemsObject: obj({ list: { type: "array", items: obj({ a: annotated }) } }),
        anyOf: obj({}, { anyOf: [obj({ a: annotated })] }),
        oneOf: obj({ a: { oneOf: [annotated, { type: "integer" }] } }),
        allOf: obj({}, { allOf: [obj({ a: annotated })] }),
        not: obj({}, { not: obj({ a: annotated }) }),
        if: obj({}, { if: obj({ a: annotated }) }),
        then: obj({}, { if: { required: ["a"] }, then: obj({ a: annotated }) }),
        else: obj({}, { if: { required: ["a"] }, else: obj({ a: annotated }) }),
        defsViaRef: obj({ a: { $ref: "#/$defs/A" } }, { $defs: { A: annotated } }),
        definitions: obj({ a: { $ref: "#/definitions/A" } }, { definitions: { A: annotated } }),
        unusedDefs: obj({}, { $defs: { A: obj({ b: annotated }) } }),
        additionalProperties: obj({}, { additionalProperties: annotated }),
        patternProperties: obj({}, { patternProperties: { "^x": annotated } }),
        dependentSchemas: obj({}, { dependentSchemas: { a: obj({ b: annotated }) } }),
        propertyNames: obj({}, { propertyNames: annotated }),
        contains: obj({ l: { type: "array", contains: annotated } }),
        unknownKeyword: obj({}, { "x-vendor": { nested: [annotated] } })
      }
      for (const [name, schema] of Object.entries(cases)) {
        assert.include(reasonOf(schema), "reachable", name)
      }
    })

    it("reports where the offending annotation is", () => {
      const schema = obj({ "a/b": { type: "array", items: { type: "string", "x-mcp-header": "X" } } })
      assert.include(reasonOf(schema), "/properties/a~1b/items")
    })

    it("allows an annotated property that also carries other keywords", () => {
      const schema = obj({
        mode: { type: "string", enum: ["a", "b"], anyOf: [{ minLength: 1 }], "x-mcp-header": "Mode" }
      })
      assert.deepStrictEqual(paramsOf(schema), [{ header: "Mode", path: ["mode"], type: "string" }])
    })

    it("ignores x-mcp-header keys inside instance data", () => {
      const data = { "x-mcp-header": "NotAnAnnotation" }
      const schema = obj({
        a: { type: "object", default: data, examples: [data], const: data, enum: [data] }
      })
      assert.deepStrictEqual(paramsOf(schema), [])
    })

    it("rejects schemas nested deeper than the bound", () => {
      let schema: Record<string, unknown> = { type: "string" }
      for (let i = 0; i < HeaderParams.maxSchemaDepth; i++) schema = { anyOf: [schema] }
      assert.include(reasonOf(schema), "deeper")
    })

    it("accepts an annotation at a moderate nesting depth", () => {
      let schema: Record<string, unknown> = { type: "string", "x-mcp-header": "Deep" }
      const path: Array<string> = []
      for (let i = 0; i < 20; i++) {
        schema = obj({ [`p${i}`]: schema })
        path.unshift(`p${i}`)
      }
      assert.deepStrictEqual(paramsOf(schema), [{ header: "Deep", path, type: "string" }])
    })

    it("rejects schemas larger than the bound", () => {
      const properties: Record<string, unknown> = {}
      for (let i = 0; i <= HeaderParams.maxSchemaEntries; i++) properties[`p${i}`] = true
      assert.include(reasonOf(obj(properties)), "entries")
    })

    it("survives cyclic input", () => {
      const schema: Record<string, unknown> = { type: "object" }
      schema.properties = { self: schema }
      assert.include(reasonOf(schema), "cycle")
      const list: Array<unknown> = []
      list.push(list)
      assert.include(reasonOf({ type: "object", anyOf: list }), "cycle")
    })

    it("accepts shared (non-cyclic) subschemas", () => {
      const shared = { type: "string" }
      const schema = obj({ a: shared, b: shared, c: { anyOf: [shared, shared] } })
      assert.deepStrictEqual(paramsOf(schema), [])
    })
  })

  describe("render", () => {
    const params: ReadonlyArray<HeaderParams.HeaderParam> = [
      { header: "Region", path: ["region"], type: "string" },
      { header: "Priority", path: ["priority"], type: "integer" },
      { header: "Verbose", path: ["verbose"], type: "boolean" }
    ]

    it("renders strings as-is, integers in decimal and booleans as true/false", () => {
      assert.deepStrictEqual(headersOf(params, { region: "us-west1", priority: 42, verbose: false, other: 1 }), {
        "Mcp-Param-Region": "us-west1",
        "Mcp-Param-Priority": "42",
        "Mcp-Param-Verbose": "false"
      })
      assert.deepStrictEqual(headersOf(params, { priority: -7, verbose: true }), {
        "Mcp-Param-Priority": "-7",
        "Mcp-Param-Verbose": "true"
      })
    })

    it("renders an integer-valued float in decimal", () => {
      assert.deepStrictEqual(headersOf(params, { priority: 42.0 }), { "Mcp-Param-Priority": "42" })
      assert.deepStrictEqual(headersOf(params, { priority: -0 }), { "Mcp-Param-Priority": "0" })
    })

    it("encodes rendered string values", () => {
      const headers = headersOf(params, { region: "Hello, 世界" })
      assert.deepStrictEqual(headers, { "Mcp-Param-Region": "=?base64?SGVsbG8sIOS4lueVjA==?=" })
      assert.strictEqual(decode(headers["Mcp-Param-Region"]), "Hello, 世界")
      assert.deepStrictEqual(headersOf(params, { region: "=?base64?literal?=" }), {
        "Mcp-Param-Region": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
      })
    })

    it("sends an empty string as an empty header", () => {
      assert.deepStrictEqual(headersOf(params, { region: "" }), { "Mcp-Param-Region": "" })
    })

    it("omits absent and null values", () => {
      assert.deepStrictEqual(headersOf(params, { region: null, verbose: null }), {})
      assert.deepStrictEqual(headersOf(params, {}), {})
      assert.deepStrictEqual(headersOf(params, undefined), {})
      assert.deepStrictEqual(headersOf(params, null), {})
    })

    it("accepts integers at ±(2^53−1)", () => {
      assert.deepStrictEqual(headersOf(params, { priority: Number.MAX_SAFE_INTEGER }), {
        "Mcp-Param-Priority": "9007199254740991"
      })
      assert.deepStrictEqual(headersOf(params, { priority: Number.MIN_SAFE_INTEGER }), {
        "Mcp-Param-Priority": "-9007199254740991"
      })
    })

    it("rejects integers beyond ±(2^53−1)", () => {
      for (const priority of [2 ** 53, -(2 ** 53), 1e21, -1e300]) {
        assert.include(errorOf(params, { priority }), "safe integer range", String(priority))
      }
    })

    it("rejects non-integral numbers for integer parameters", () => {
      for (const priority of [3.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
        assert.include(errorOf(params, { priority }), "must be an integer", String(priority))
      }
    })

    it("rejects values of the wrong JSON type", () => {
      assert.include(errorOf(params, { region: 42 }), "must be a string, got number")
      assert.include(errorOf(params, { region: ["a"] }), "must be a string, got array")
      assert.include(errorOf(params, { priority: "42" }), "must be a integer, got string")
      assert.include(errorOf(params, { verbose: "true" }), "must be a boolean, got string")
      assert.include(errorOf(params, { verbose: 1 }), "must be a boolean, got number")
      assert.include(errorOf(params, { region: { nested: true } }), "Mcp-Param-Region")
    })

    it("reads values at nested properties paths", () => {
      const nested: ReadonlyArray<HeaderParams.HeaderParam> = [
        { header: "Region", path: ["tenant", "location", "region"], type: "string" },
        { header: "Tenant-Id", path: ["tenant", "id"], type: "integer" }
      ]
      assert.deepStrictEqual(headersOf(nested, { tenant: { id: 7, location: { region: "eu" } } }), {
        "Mcp-Param-Region": "eu",
        "Mcp-Param-Tenant-Id": "7"
      })
      assert.deepStrictEqual(headersOf(nested, { tenant: { location: null } }), {})
      assert.deepStrictEqual(headersOf(nested, { tenant: "flat" }), {})
      assert.deepStrictEqual(headersOf(nested, { tenant: [{ id: 7 }] }), {})
    })

    it("reads own properties only", () => {
      const inherited: ReadonlyArray<HeaderParams.HeaderParam> = [
        { header: "Ctor", path: ["constructor"], type: "string" },
        { header: "Proto", path: ["__proto__", "x"], type: "string" }
      ]
      assert.deepStrictEqual(headersOf(inherited, {}), {})
      assert.deepStrictEqual(headersOf(inherited, JSON.parse("{\"__proto__\":{\"x\":\"y\"}}")), {
        "Mcp-Param-Proto": "y"
      })
    })

    it("renders what validate collects", () => {
      const schema = obj({
        region: { type: "string", "x-mcp-header": "Region" },
        filter: obj({ level: { type: ["integer", "null"], "x-mcp-header": "Level" } })
      })
      assert.deepStrictEqual(headersOf(paramsOf(schema), { region: " eu ", filter: { level: 3 } }), {
        "Mcp-Param-Region": "=?base64?IGV1IA==?=",
        "Mcp-Param-Level": "3"
      })
      assert.deepStrictEqual(headersOf(paramsOf(schema), { region: "eu", filter: { level: null } }), {
        "Mcp-Param-Region": "eu"
      })
    })
  })

  // Mirrors @modelcontextprotocol/conformance's SEP-2243 client scenarios.
  describe("conformance scenarios", () => {
    // The referee's own checks (`Ns`, `Ps`, `Ms` in the scenario source), ported.
    const refereeNeedsBase64 = (value: string) => /[^\x20-\x7e]/.test(value) || value !== value.trim()
    const refereeDecode = (header: string) => {
      const match = /^=\?base64\?(.*)\?=$/.exec(header)
      return match ? Buffer.from(match[1], "base64").toString("utf-8") : header
    }
    const refereeAccepts = (header: string | undefined, body: unknown, type: string): boolean => {
      if (header === undefined) return false
      const expected = type === "boolean" ? (body ? "true" : "false") : String(body)
      if (refereeNeedsBase64(expected) && !/^=\?base64\?(.*)\?=$/.test(header)) return false
      const decoded = refereeDecode(header)
      return type === "integer" ? Number(decoded) === Number(expected) : decoded === expected
    }

    it("http-custom-headers: mirrors and encodes test_custom_headers", () => {
      const string = (header: string) => ({ type: "string", "x-mcp-header": header })
      const schema = obj({
        region: string("Region"),
        priority: { type: "integer", "x-mcp-header": "Priority" },
        verbose: { type: "boolean", "x-mcp-header": "Verbose" },
        debug: { type: "boolean", "x-mcp-header": "Debug" },
        empty_val: string("EmptyVal"),
        method_val: string("Method"),
        float_val: { type: "number" },
        non_ascii_val: string("NonAscii"),
        whitespace_val: string("Whitespace"),
        leading_space_val: string("LeadingSpace"),
        trailing_space_val: string("TrailingSpace"),
        internal_space_val: string("InternalSpace"),
        control_char_val: string("ControlChar"),
        crlf_val: string("CrLf"),
        tab_val: string("Tab"),
        query: { type: "string" }
      }, { required: ["region", "priority", "query"] })
      const args: Record<string, unknown> = {
        region: "us-west1",
        priority: 42,
        verbose: false,
        debug: true,
        empty_val: "",
        method_val: "test-method",
        float_val: 3.14159,
        non_ascii_val: "Hello, 世界",
        whitespace_val: " padded ",
        leading_space_val: " us-west1",
        trailing_space_val: "us-west1 ",
        internal_space_val: "us west 1",
        control_char_val: "line1\nline2",
        crlf_val: "line1\r\nline2",
        tab_val: "\tindented",
        query: "SELECT * FROM users"
      }
      const params = paramsOf(schema)
      assert.strictEqual(params.length, 14)
      // Node lower-cases incoming header names; the referee looks them up that way.
      const received = Object.fromEntries(Object.entries(headersOf(params, args)).map(([k, v]) => [k.toLowerCase(), v]))
      for (const param of params) {
        const body = args[param.path[0]]
        const header = received[`mcp-param-${param.header.toLowerCase()}`]
        assert.isTrue(refereeAccepts(header, body, param.type), `${param.header}: ${header}`)
      }
      assert.strictEqual(received["mcp-param-method"], "test-method")
      assert.strictEqual(received["mcp-param-emptyval"], "")
      assert.strictEqual(received["mcp-param-internalspace"], "us west 1")
      assert.isUndefined(received["mcp-param-floatval"])
      assert.isUndefined(received["mcp-param-query"])
      assert.strictEqual(Object.keys(received).length, 14)
    })

    it("http-custom-headers: omits the null parameter of test_custom_headers_null", () => {
      const schema = obj({
        region: { type: "string", "x-mcp-header": "Region" },
        priority: { type: "integer", "x-mcp-header": "Priority" },
        verbose: { type: "boolean", "x-mcp-header": "Verbose" },
        query: { type: "string" }
      }, { required: ["region", "priority", "query"] })
      const headers = headersOf(paramsOf(schema), { region: "us-east1", priority: 1, verbose: null, query: "SELECT 1" })
      assert.deepStrictEqual(headers, { "Mcp-Param-Region": "us-east1", "Mcp-Param-Priority": "1" })
    })

    it("http-invalid-tool-headers: keeps valid_tool and rejects every invalid tool", () => {
      const tools: Record<string, unknown> = {
        valid_tool: obj({ region: { type: "string", "x-mcp-header": "Region" } }),
        invalid_empty_header: obj({ value: { type: "string", "x-mcp-header": "" } }),
        invalid_object_header: obj({ data: { type: "object", "x-mcp-header": "Data" } }),
        invalid_array_header: obj({ items: { type: "array", items: { type: "string" }, "x-mcp-header": "Items" } }),
        invalid_null_header: obj({ nil: { type: "null", "x-mcp-header": "Nil" } }),
        invalid_number_header: obj({ score: { type: "number", "x-mcp-header": "Score" } }),
        invalid_duplicate_same_case: obj({
          field1: { type: "string", "x-mcp-header": "Region" },
          field2: { type: "string", "x-mcp-header": "Region" }
        }),
        invalid_duplicate_diff_case: obj({
          field1: { type: "string", "x-mcp-header": "MyField" },
          field2: { type: "string", "x-mcp-header": "myfield" }
        }),
        invalid_space_in_name: obj({ value: { type: "string", "x-mcp-header": "My Region" } }),
        invalid_colon_in_name: obj({ value: { type: "string", "x-mcp-header": "Region:Primary" } }),
        invalid_non_ascii_name: obj({ value: { type: "string", "x-mcp-header": "Région" } }),
        invalid_control_char_name: obj({ value: { type: "string", "x-mcp-header": "Region\t1" } })
      }
      const kept = Object.entries(tools).filter(([, schema]) => HeaderParams.validate(schema).valid).map(([n]) => n)
      assert.deepStrictEqual(kept, ["valid_tool"])
    })

    it("http-standard-headers: tool names and resource URIs pass through unencoded", () => {
      for (const name of ["test_headers", "my-hyphenated-tool", "test_prompt", "file:///path/to/file%20name.txt"]) {
        assert.strictEqual(HeaderParams.encodeValue(name), name)
      }
      assert.strictEqual(
        HeaderParams.encodeValue("https://example.com/resource?id=123"),
        "https://example.com/resource?id=123"
      )
    })
  })
})
