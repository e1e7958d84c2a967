/**
 * Messages between `BrowserJsonSchema` and its Web Worker.
 *
 * @internal
 */
import type { CheckOutcome, Options, Outcome } from "../../JsonSchema.js"

/** @internal */
export type Request =
  | { readonly _tag: "init"; readonly options: Options }
  | {
    readonly _tag: "job"
    readonly id: number
    readonly op: "validate" | "check"
    readonly schema: unknown
    readonly instance: unknown
    readonly cacheKey: string | undefined
  }

/** @internal */
export type Reply = "ready" | { readonly id: number; readonly outcome: Outcome | CheckOutcome }
