/**
 * The worker thread of `NodeJsonSchema`: runs the in-process validator and answers one request
 * at a time. The parent enforces the hard deadline by terminating this thread.
 *
 * It loads the validator engine without Effect: a worker is started again after every timeout,
 * and loading Effect would double its start-up time.
 *
 * @internal
 */
import { dialectUris } from "@mcp-effect/client/internal/jsonSchema/dialect"
import { makeEngine } from "@mcp-effect/client/internal/jsonSchema/engine"
import { engineOptions } from "@mcp-effect/client/internal/jsonSchema/limits"
import type { CheckOutcome, Options, Outcome } from "@mcp-effect/client/JsonSchema"
import { parentPort, workerData } from "node:worker_threads"
import type { Reply, Request } from "./jsonSchemaProtocol.js"

const port = parentPort!
const options = engineOptions(workerData as Options)
const engine = makeEngine(options)

// Compile the default dialect's meta-schema now, so the first request is not charged for it (the
// others, rarer, are compiled on first use, out of that request's budget).
await engine.check({ $schema: dialectUris[options.defaultDialect], type: "object" }, undefined)

port.on("message", (request: Request) => {
  if (!request.withSchema && (request.cacheKey === undefined || !engine.isCached(request.cacheKey))) {
    return port.postMessage({ id: request.id, missing: true } satisfies Reply)
  }
  const work: Promise<Outcome | CheckOutcome> = request.op === "validate"
    ? engine.validate(request.schema, request.instance, request.cacheKey)
    : engine.check(request.schema, request.cacheKey)
  work.then(
    (outcome) => port.postMessage({ id: request.id, outcome } satisfies Reply),
    (error) =>
      port.postMessage(
        {
          id: request.id,
          outcome: { _tag: "Unusable", reason: `the validator failed: ${String(error)}`.slice(0, 300) }
        } satisfies Reply
      )
  )
})
port.postMessage("ready")
