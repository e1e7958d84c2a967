/**
 * Messages between `NodeJsonSchema` and its worker thread.
 *
 * @internal
 */
import type { CheckOutcome, Outcome } from "@mcp-effect/client/JsonSchema"

/**
 * A job. The schema is left out (`schema: undefined`, `withSchema: false`) when the worker was
 * sent it before under the same cache key; a worker that no longer has it answers `missing`.
 *
 * @internal
 */
export type Request =
  | {
    readonly id: number
    readonly op: "validate"
    readonly schema: unknown
    readonly withSchema: boolean
    readonly instance: unknown
    readonly cacheKey: string | undefined
  }
  | {
    readonly id: number
    readonly op: "check"
    readonly schema: unknown
    readonly withSchema: boolean
    readonly cacheKey: string | undefined
  }

/** @internal */
export type Reply =
  | { readonly id: number; readonly outcome: Outcome | CheckOutcome }
  | { readonly id: number; readonly missing: true }
