import { registerSchema, unregisterSchema, setShouldValidateFormat } from "@hyperjump/json-schema/draft-2020-12"
import "@hyperjump/json-schema/draft-2019-09"
import "@hyperjump/json-schema/draft-07"
import { compile, interpret, getSchema, BASIC } from "@hyperjump/json-schema/experimental"
import * as Instance from "@hyperjump/json-schema/instance/experimental"
import { removeUriSchemePlugin } from "@hyperjump/browser"
removeUriSchemePlugin("http"); removeUriSchemePlugin("https"); removeUriSchemePlugin("file")
setShouldValidateFormat(false)
const run = async (schema, inst, d = "https://json-schema.org/draft/2020-12/schema") => {
  const id = "urn:uuid:" + crypto.randomUUID()
  registerSchema(schema, id, d)
  try {
  const compiled = await compile(await getSchema(id))
  const out = interpret(compiled, Instance.fromJs(inst), BASIC)
  console.log(JSON.stringify(out.errors?.map(e => [e.keyword.split("/").pop(), e.absoluteKeywordLocation.split("#")[1], e.instanceLocation])))
  return compiled
  } catch (e) { console.log("ERR", e.message) } finally { unregisterSchema(id) }
}
await run({ additionalProperties: false, properties: {a: {}} }, {a: 1, b: 2, c: 3})
await run(false, 1)
await run({ properties: { a: false } }, {a: 1})
await run({ oneOf: [{type: "string"}, {type: "number"}] }, null)
await run({ anyOf: [{type: "string"}, {type: "number"}] }, null)
await run({ not: {type: "null"} }, null)
await run({ unevaluatedProperties: false, allOf: [{properties: {a: true}}] }, {a: 1, b: 2})
await run({ if: {type: "number"}, then: {minimum: 3}, else: {type: "string"} }, 1)
await run({ contains: {type: "number"}, maxContains: 1 }, [1, 2])
await run({ contains: {type: "number"} }, ["a"])
await run({ dependentRequired: {a: ["b"]} }, {a: 1})
await run({ propertyNames: {pattern: "^x"} }, {y: 1})
await run({ items: {type: "string"}, uniqueItems: true }, [1, 1])
await run({ $id: "http://x.y/z", $schema: "http://json-schema.org/draft-07/schema#", definitions: {a: {type: "string"}}, properties: {a: {$ref: "#/definitions/a"}} }, {a: 1})
// depth
for (const n of [100, 1000, 3000, 10000]) {
  let inst = 1; for (let i = 0; i < n; i++) inst = [inst]
  const t = performance.now()
  try { await run({ items: { $ref: "#" } }, inst); console.log("depth", n, "ok", performance.now() - t) } catch (e) { console.log("depth", n, e.message) }
}
