import { describe, expect, it } from "@effect/vitest"
import { forEachBounded } from "../src/common.js"
import { makeLatencies, percentile, percentiles, tailMetrics } from "../src/latency.js"

describe("percentile", () => {
  it("is the nearest rank on the sorted values, never an interpolation", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i) // 100 … 1
    expect(percentiles(values, [0, 50, 95, 99, 100])).toEqual([1, 50, 95, 99, 100])
    expect(percentile([3, 1, 2], 50)).toBe(2)
    expect(percentile([10, 20], 50)).toBe(10)
    expect(percentile([10, 20], 51)).toBe(20)
  })

  it("leaves unrecorded calls (NaN) out, and is NaN for no value", () => {
    expect(percentile([Number.NaN, 5, Number.NaN, 7], 100)).toBe(7)
    expect(percentile([Number.NaN], 50)).toBeNaN()
    expect(percentile([], 99)).toBeNaN()
  })

  it("refuses a percentile outside 0–100", () => {
    expect(() => percentile([1], 101)).toThrow(/out of range/)
    expect(() => percentile([1], -1)).toThrow(/out of range/)
  })
})

describe("latencies", () => {
  it("records each call in its own slot and names the tails by prefix", () => {
    const latencies = makeLatencies(3)
    latencies.done(1, performance.now() - 5)
    expect(Number.isNaN(latencies.ms[0]!)).toBe(true)
    expect(latencies.ms[1]!).toBeGreaterThanOrEqual(5)
    const tails = tailMetrics(latencies)
    expect(Object.keys(tails)).toEqual(["p50Ms", "p95Ms", "p99Ms"])
    expect(tails.p99Ms).toBe(latencies.ms[1])
    expect(Object.keys(tailMetrics(latencies, "call"))).toEqual(["callP50Ms", "callP95Ms", "callP99Ms"])
  })
})

describe("forEachBounded", () => {
  it("keeps at most `concurrency` running, and the results in the items' order", async () => {
    let running = 0
    let most = 0
    const results = await forEachBounded([30, 10, 20, 0, 5], 2, async (ms, i) => {
      running++
      most = Math.max(most, running)
      await new Promise((resolve) => setTimeout(resolve, ms))
      running--
      return i
    })
    expect(results).toEqual([0, 1, 2, 3, 4])
    expect(most).toBe(2)
  })

  it("rejects with the first failure and starts nothing after it", async () => {
    const started: Array<number> = []
    await expect(forEachBounded([1, 2, 3, 4], 1, async (n) => {
      started.push(n)
      if (n === 2) throw new Error("boom")
      return n
    })).rejects.toThrow("boom")
    expect(started).toEqual([1, 2])
  })
})
