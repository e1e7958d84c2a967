/**
 * Each request as a client span with its duration metric, and the trace context in its
 * `_meta` (`internal/tracing.ts` has the conventions). Composed only on a connection that
 * traces (a tracer installed, or telemetry asked for).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Tracing from "../tracing.js"
import type { Step } from "./send.js"

/** @internal */
export const traced =
  (tracing: Tracing.Tracing, attributes: () => Record<string, unknown> | undefined): Step => (next) => (request) =>
    Effect.suspend(() =>
      Tracing.request(tracing, request.method, request.params, attributes, (params, onTracedId) => {
        const onId = request.onId
        return next(Object.assign({}, request, {
          params,
          onId: onId === undefined ? onTracedId : (id: number) => {
            onTracedId(id)
            onId(id)
          }
        }))
      })
    )
