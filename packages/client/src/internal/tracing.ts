/**
 * Spans and metrics after the OpenTelemetry semantic conventions for MCP, through Effect's own
 * `Tracer` and `Metric`. Whether a connection traces is decided once, when it is made
 * (`make`): without an installed tracer the request path is the untraced one, so a request
 * costs nothing more than before.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Tracer from "effect/Tracer"
import type * as Protocol from "../Protocol.js"
import type * as RpcPeer from "../RpcPeer.js"
import type { TransportKind } from "../ServerConfig.js"
import type * as Telemetry from "../Telemetry.js"
import type { Transport } from "../Transport.js"

// The conventions' advisory buckets (seconds).
const boundaries = MetricBoundaries.fromIterable([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300])

/** @internal */
export const operationDuration = Metric.histogram(
  "mcp.client.operation.duration",
  boundaries,
  "The duration of the MCP request as observed on the sender from the time it was sent until the response is received."
)

/** @internal */
export const sessionDuration = Metric.histogram(
  "mcp.client.session.duration",
  boundaries,
  "The duration of the MCP session as observed on the MCP client."
)

// Effect's built-in tracer: spans that go nowhere, so not worth their cost per request.
const builtIn = Effect.runSync(Effect.tracer)

type Attributes = Record<string, unknown>
type Params = Record<string, unknown> | undefined

/** A tracing connection's settings. @internal */
export interface Tracing {
  readonly tracer: Tracer.Tracer
  readonly propagate: boolean
  readonly server: string
  readonly clock: Clock.Clock
}

/** The tracing of a connection, or `undefined` when it does not trace. @internal */
export const make = (
  server: string,
  options: Telemetry.Options,
  perServer: boolean | undefined
): Effect.Effect<Tracing | undefined> =>
  // Read in one step of the fiber (no generator): most connections have no tracer to look at.
  options.tracing === false ? Effect.succeed(undefined) : Effect.withFiberRuntime((fiber) => {
    const tracer = Context.get(fiber.currentDefaultServices, Tracer.Tracer)
    if (
      options.tracing !== true && (tracer === builtIn || !fiber.getFiberRef(FiberRef.currentTracerEnabled))
    ) return Effect.succeed(undefined)
    return Effect.succeed({
      tracer,
      propagate: perServer ?? options.propagateTraceContext ?? true,
      server,
      clock: Context.get(fiber.currentDefaultServices, Clock.Clock)
    })
  })

const isHttpKind = (kind: TransportKind) => kind === "streamable_http" || kind === "http" || kind === "sse"

/** What a transport tells about where it goes: the attributes of every span of its session. @internal */
export const transportAttributes = (kind: TransportKind, transport: Transport | undefined): Attributes => {
  const attributes: Attributes = {}
  if (kind === "stdio") attributes["network.transport"] = "pipe"
  else if (isHttpKind(kind)) {
    attributes["network.transport"] = "tcp"
    attributes["network.protocol.name"] = "http"
  }
  if (transport?.address !== undefined) {
    attributes["server.address"] = transport.address.host
    attributes["server.port"] = transport.address.port
  }
  return attributes
}

/** The attributes of an opened session: its transport's, the negotiated version, the session id. @internal */
export const sessionAttributes = (
  kind: TransportKind,
  transport: Transport | undefined,
  negotiated: Protocol.Negotiated
): Attributes => {
  const attributes = transportAttributes(kind, transport)
  attributes["mcp.protocol.version"] = negotiated.protocolVersion
  const sessionId = transport?.sessionId?.()
  if (sessionId !== undefined) attributes["mcp.session.id"] = sessionId
  return attributes
}

const targetOf = (method: string, params: Params): string | undefined =>
  (method === "tools/call" || method === "prompts/get") && typeof params?.name === "string" ? params.name : undefined

const requestAttributes = (tracing: Tracing, method: string, params: Params, target: string | undefined) => {
  const attributes: Attributes = { "mcp.method.name": method, "mcp_effect.server.name": tracing.server }
  if (target !== undefined) {
    if (method === "tools/call") {
      attributes["gen_ai.tool.name"] = target
      attributes["gen_ai.operation.name"] = "execute_tool"
    } else attributes["gen_ai.prompt.name"] = target
  }
  // An attribute only, never in the span name (unbounded cardinality).
  if (method.startsWith("resources/") && typeof params?.uri === "string") attributes["mcp.resource.uri"] = params.uri
  return attributes
}

// The OpenTelemetry span behind an `@effect/opentelemetry` span carries the trace state;
// Effect's `Span` has none, so it is read structurally (no dependency on the OTel API).
const traceStateOf = (span: Tracer.Span): string | undefined => {
  const otel = (span as { readonly span?: { readonly spanContext?: () => { readonly traceState?: unknown } } }).span
  const state = typeof otel?.spanContext === "function" ? otel.spanContext().traceState : undefined
  const serialized = Predicate.isRecord(state) && typeof state.serialize === "function" ? state.serialize() : undefined
  return typeof serialized === "string" && serialized !== "" ? serialized : undefined
}

/** The request's params with the span's W3C trace context in `_meta`. @internal */
export const inject = (params: Params, span: Tracer.Span): Params => {
  if (Context.get(span.context, Tracer.DisablePropagation)) return params
  const meta: Attributes = { traceparent: `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}` }
  const state = traceStateOf(span)
  if (state !== undefined) meta.tracestate = state
  return { ...params, _meta: { ...(Predicate.isRecord(params?._meta) ? params._meta : {}), ...meta } }
}

// High-cardinality attributes stay on the span only.
const notTags = new Set(["mcp.session.id", "mcp.resource.uri", "jsonrpc.request.id", "mcp_effect.server.name"])

// Sorted by key: a metric's key compares its tags in order.
const labelsOf = (attributes: Attributes) =>
  Object.keys(attributes).sort().flatMap((key) =>
    notTags.has(key) || attributes[key] === undefined ? [] : [MetricLabel.make(key, String(attributes[key]))]
  )

const seconds = (clock: Clock.Clock, startedAt: bigint) => Number(clock.unsafeCurrentTimeNanos() - startedAt) / 1e9

/** `error.type` (and the JSON-RPC code) of a failed exit; `tool_error` for an `isError` tool result. @internal */
export const errorAttributes = (method: string, exit: Exit.Exit<unknown, unknown>): Attributes => {
  if (Exit.isSuccess(exit)) {
    return method === "tools/call" && Predicate.isRecord(exit.value) && exit.value.isError === true
      ? { "error.type": "tool_error" }
      : {}
  }
  if (Cause.isInterruptedOnly(exit.cause)) return {}
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) return { "error.type": "_OTHER" }
  const error = failure.value as { readonly _tag?: unknown; readonly code?: unknown }
  const attributes: Attributes = { "error.type": typeof error._tag === "string" ? error._tag : "_OTHER" }
  if (typeof error.code === "number") attributes["rpc.response.status_code"] = String(error.code)
  return attributes
}

const setAll = (span: Tracer.Span, attributes: Attributes) => {
  for (const key in attributes) span.attribute(key, attributes[key])
}

/**
 * One request as a client span `{mcp.method.name} {target}`, with the trace context in its
 * `_meta` (when propagating) and its duration in `mcp.client.operation.duration`. `session`
 * gives the current session's attributes (read again at the end when the request opened it).
 *
 * @internal
 */
export const request = <E>(
  tracing: Tracing,
  method: string,
  params: Params,
  session: () => Attributes | undefined,
  run: (params: Params, onId: (id: number) => void) => Effect.Effect<unknown, E>
): Effect.Effect<unknown, E> => {
  const target = targetOf(method, params)
  const atStart = session()
  const attributes = { ...atStart, ...requestAttributes(tracing, method, params, target) }
  return Effect.withTracer(
    Effect.useSpan(target === undefined ? method : `${method} ${target}`, { kind: "client", attributes }, (span) => {
      const startedAt = tracing.clock.unsafeCurrentTimeNanos()
      return run(
        tracing.propagate ? inject(params, span) : params,
        (id) => span.attribute("jsonrpc.request.id", String(id))
      ).pipe(
        Effect.withParentSpan(span),
        Effect.onExit((exit) => {
          const late = atStart === undefined ? session() : undefined
          const errors = errorAttributes(method, exit)
          if (late !== undefined) setAll(span, late)
          setAll(span, errors)
          const tags = labelsOf({ ...late, ...attributes, ...errors })
          return Metric.update(Metric.taggedWithLabels(operationDuration, tags), seconds(tracing.clock, startedAt))
        })
      )
    }),
    tracing.tracer
  )
}

/**
 * The opening of a session (transport, era detection, opening exchange) as a client span
 * `connect {server}`; `attributes` tells the opened session's attributes.
 *
 * @internal
 */
export const connect = <A, E>(
  tracing: Tracing,
  attempt: Effect.Effect<A, E>,
  attributes: (opened: A) => Attributes
): Effect.Effect<A, E> =>
  Effect.withTracer(
    Effect.useSpan(
      `connect ${tracing.server}`,
      { kind: "client", attributes: { "mcp_effect.server.name": tracing.server } },
      (span) =>
        attempt.pipe(
          Effect.withParentSpan(span),
          Effect.onExit((exit) =>
            Effect.sync(() => setAll(span, Exit.isSuccess(exit) ? attributes(exit.value) : errorAttributes("", exit)))
          )
        )
    ),
    tracing.tracer
  )

/** Records a session's duration when it ended (`cause`: why it died, if it did). @internal */
export const sessionEnded = (
  tracing: Tracing,
  attributes: Attributes,
  startedAt: bigint,
  cause: { readonly _tag: string } | undefined
): Effect.Effect<void> =>
  Metric.update(
    Metric.taggedWithLabels(
      sessionDuration,
      labelsOf(cause === undefined ? attributes : { ...attributes, "error.type": cause._tag })
    ),
    seconds(tracing.clock, startedAt)
  )

/** A peer whose requests (the opening exchange) are traced like the request path's. @internal */
export const tracedPeer = (tracing: Tracing, peer: RpcPeer.RpcPeer, attributes: () => Attributes): RpcPeer.RpcPeer => ({
  ...peer,
  request: (method, params, options) =>
    request(tracing, method, params, attributes, (traced, onId) =>
      peer.request(method, traced, {
        ...options,
        onId: options?.onId === undefined ? onId : (id) => {
          onId(id)
          options.onId?.(id)
        }
      }))
})
