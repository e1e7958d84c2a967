/**
 * How to reach one server: its name, its transport and per-server options.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type { TransportFactory } from "./Transport.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ServerConfig<R = never> {
  /** Name used to route calls (`{ server }`) and in errors. */
  readonly name: string
  /** Transport kind, for display: `stdio`, `memory`, … */
  readonly kind: string
  readonly transport: TransportFactory<R>
  /** Default timeout of every request to this server (default 30 seconds). */
  readonly readTimeout?: Duration.DurationInput | undefined
  /** Overrides the client's `protocol` for this server. */
  readonly protocol?: "auto" | "modern" | "legacy" | undefined
  /** Overrides the client's `discoverTimeout` for this server. */
  readonly discoverTimeout?: Duration.DurationInput | undefined
  /** Sends `ping` at this interval while connected. */
  readonly keepAlive?: Duration.DurationInput | undefined
  /**
   * Transports tried in order when opening with `transport` fails (auto-detection: Streamable
   * HTTP, then HTTP+SSE, then plain HTTP). The one that worked is kept for reopening.
   */
  readonly fallbacks?: ReadonlyArray<{ readonly kind: string; readonly transport: TransportFactory<R> }> | undefined
}
