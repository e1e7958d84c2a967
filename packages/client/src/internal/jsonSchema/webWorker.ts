/**
 * The Web Worker of `BrowserJsonSchema` (built to `jsonSchemaWorker.js` beside the browser
 * bundle): runs the in-process engine and answers one job at a time. The page enforces the hard
 * deadline by terminating this worker. No Effect runtime is loaded: a worker is started again
 * after every timeout.
 *
 * @internal
 */
import type { CheckOutcome, Outcome } from "../../JsonSchema.js"
import { dialectUris } from "./dialect.js"
import { makeEngine } from "./engine.js"
import { engineOptions } from "./limits.js"
import type { Reply, Request } from "./workerProtocol.js"

interface Port {
  onmessage: ((event: { readonly data: Request }) => void) | null
  postMessage(message: Reply): void
}
const port = globalThis as unknown as Port

let engine: ReturnType<typeof makeEngine> | undefined

port.onmessage = ({ data }) => {
  if (data._tag === "init") {
    const options = engineOptions(data.options)
    const started = makeEngine(options)
    // The default dialect's meta-schema is compiled before the first job is charged for it.
    void started.check({ $schema: dialectUris[options.defaultDialect], type: "object" }, undefined).finally(() => {
      engine = started
      port.postMessage("ready")
    })
    return
  }
  const work: Promise<Outcome | CheckOutcome> = data.op === "validate"
    ? engine!.validate(data.schema, data.instance, data.cacheKey)
    : engine!.check(data.schema, data.cacheKey)
  work.then(
    (outcome) => port.postMessage({ id: data.id, outcome }),
    (error) =>
      port.postMessage({
        id: data.id,
        outcome: { _tag: "Unusable", reason: `the validator failed: ${String(error)}`.slice(0, 300) }
      })
  )
}
