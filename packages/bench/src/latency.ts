/**
 * Per-call latencies of the bench, recorded cheaply (one preallocated `Float64Array` slot per
 * call, no allocation on the measured path) and summarized as percentiles.
 *
 * @since 0.2.0
 */

/**
 * The latency of each call of a run, in ms, by call index.
 *
 * @since 0.2.0
 * @category models
 */
export interface Latencies {
  /** One slot per call; `NaN` for a call not recorded (it failed, or never ran). */
  readonly ms: Float64Array
  /** Records call `index`, started at `started` (`performance.now()`), as ending now. */
  readonly done: (index: number, started: number) => void
}

/** @since 0.2.0 @category constructors */
export const makeLatencies = (calls: number): Latencies => {
  const ms = new Float64Array(calls).fill(Number.NaN)
  return {
    ms,
    done: (index, started) => {
      ms[index] = performance.now() - started
    }
  }
}

/**
 * The `p`-th percentile (0–100) of `values`, nearest rank on the sorted values (no
 * interpolation: a p99 is a latency some call had); `NaN` values are left out, and an empty
 * set gives `NaN`.
 *
 * @since 0.2.0
 * @category utils
 */
export const percentile = (values: ArrayLike<number>, p: number): number => percentiles(values, [p])[0]!

/**
 * Several percentiles of `values` with one sort (see {@link percentile}).
 *
 * @since 0.2.0
 * @category utils
 */
export const percentiles = (values: ArrayLike<number>, ps: ReadonlyArray<number>): Array<number> => {
  const sorted = Float64Array.from(values).filter((v) => !Number.isNaN(v)).sort()
  return ps.map((p) => {
    if (p < 0 || p > 100 || Number.isNaN(p)) throw new Error(`percentile out of range: ${p}`)
    if (sorted.length === 0) return Number.NaN
    const rank = Math.max(1, Math.ceil((p / 100) * sorted.length))
    return sorted[rank - 1]!
  })
}

/**
 * The p50 / p95 / p99 of `latencies` as metrics named `<prefix>P50Ms` … (`prefix` empty:
 * `p50Ms` …).
 *
 * @since 0.2.0
 * @category utils
 */
export const tailMetrics = (latencies: Latencies, prefix = ""): Record<string, number> => {
  const [p50, p95, p99] = percentiles(latencies.ms, [50, 95, 99])
  const key = (name: string) => prefix === "" ? name : `${prefix}${name[0]!.toUpperCase()}${name.slice(1)}`
  return { [key("p50Ms")]: p50!, [key("p95Ms")]: p95!, [key("p99Ms")]: p99! }
}
