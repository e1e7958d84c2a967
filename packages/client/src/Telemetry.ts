/**
 * Tracing and metrics after the OpenTelemetry semantic conventions for MCP: the client's spans
 * go through Effect's own `Tracer` (install one, e.g. with `@effect/opentelemetry`), its
 * durations into Effect `Metric` histograms. See `docs/observability.md`.
 *
 * @since 0.1.0
 */
import type * as Metric from "effect/Metric"
import type * as MetricKeyType from "effect/MetricKeyType"
import type * as MetricState from "effect/MetricState"
import * as internal from "./internal/tracing.js"

/**
 * The switches of a client (`McpClient.Options`, `ServerConnection.Options`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Spans and metrics: `"auto"` (default) when a tracer other than Effect's built-in one is
   * installed where the connection is made (decided once per connection: nothing is spent per
   * request otherwise), `true` always, `false` never.
   */
  readonly tracing?: boolean | "auto" | undefined
  /**
   * Writes the W3C `traceparent` / `tracestate` of each request's span into its `params._meta`
   * (default `true` while tracing; a `ServerConfig.propagateTraceContext` overrides it per server).
   */
  readonly propagateTraceContext?: boolean | undefined
}

/**
 * A duration histogram in seconds, tagged with the conventions' attributes.
 *
 * @since 0.1.0
 * @category models
 */
export type DurationHistogram = Metric.Metric<
  MetricKeyType.MetricKeyType.Histogram,
  number,
  MetricState.MetricState.Histogram
>

/**
 * `mcp.client.operation.duration`: each request, from its sending until its answer (seconds).
 *
 * @since 0.1.0
 * @category metrics
 */
export const operationDuration: DurationHistogram = internal.operationDuration

/**
 * `mcp.client.session.duration`: each session, from its opening until it ended (seconds).
 *
 * @since 0.1.0
 * @category metrics
 */
export const sessionDuration: DurationHistogram = internal.sessionDuration
