import { describe, expect, it } from "@effect/vitest"
import { choose, excusesReissue, prng, streamFor } from "../src/faults.js"
import type { Observations, Resources } from "../src/invariants.js"
import { check } from "../src/invariants.js"

const idle: Resources = { fibers: 0, handles: { PipeWrap: 2 }, fds: 20, children: 0 }

/** Three calls that each succeeded once with their own token, received once each. */
const clean: Observations = {
  started: ["a#0", "a#1", "b#0"],
  settlements: [
    { token: "a#0", outcome: { _tag: "Ok", token: "a#0" } },
    { token: "a#1", outcome: { _tag: "Failed", error: "RequestTimeoutError" } },
    { token: "b#0", outcome: { _tag: "Ok", token: "b#0" } }
  ],
  receipts: [
    { token: "a#0", fault: "none", excused: false },
    { token: "a#1", fault: "stall", excused: false },
    { token: "b#0", fault: "none", excused: false }
  ],
  before: idle,
  after: idle,
  live: [100e6, 110e6, 105e6]
}

const failuresOf = (changes: Partial<Observations>) => check({ ...clean, ...changes }).failures

describe("check", () => {
  it("passes a clean run and counts its outcomes", () => {
    const verdict = check(clean)
    expect(verdict.failures).toEqual([])
    expect(verdict).toMatchObject({
      calls: 3,
      succeeded: 2,
      failed: { RequestTimeoutError: 1 },
      byTarget: { a: { ok: 1, RequestTimeoutError: 1 }, b: { ok: 1 } },
      lost: 0,
      deliveredTwice: 0,
      faults: { none: 2, stall: 1 }
    })
  })

  it("reports a call that never settled as lost", () => {
    const lostOne = failuresOf({ settlements: clean.settlements.slice(0, 2) })
    expect(lostOne).toEqual(["1 call(s) never settled (lost): b#0"])
    const watchdog = failuresOf({
      settlements: [...clean.settlements.slice(0, 2), { token: "b#0", outcome: { _tag: "Lost" } }]
    })
    expect(watchdog).toEqual(["1 call(s) never settled (lost): b#0"])
    expect(check({ ...clean, settlements: clean.settlements.slice(0, 2) }).lost).toBe(1)
  })

  it("reports a call settled twice", () => {
    const failures = failuresOf({ settlements: [...clean.settlements, clean.settlements[0]!] })
    expect(failures).toContain("1 call(s) settled more than once: a#0")
    expect(failures).toContain("1 result(s) delivered to more than one call: a#0")
  })

  it("reports a call given another call's result", () => {
    const swapped = failuresOf({
      settlements: [
        { token: "a#0", outcome: { _tag: "Ok", token: "b#0" } },
        clean.settlements[1]!,
        clean.settlements[2]!
      ]
    })
    expect(swapped).toEqual([
      "1 call(s) got another call's result: a#0 got b#0",
      "1 result(s) delivered to more than one call: b#0"
    ])
  })

  it("reports a tools/call the server received twice", () => {
    const resent = failuresOf({ receipts: [...clean.receipts, { token: "a#1", fault: "none", excused: false }] })
    expect(resent).toEqual(["1 tools/call(s) re-sent: a#1 ×2 (stall, none)"])
  })

  it("allows the re-issue 2026-07-28 requires after a broken response, and only that", () => {
    const reissued = [
      { token: "a#0", fault: "drop", excused: true },
      ...clean.receipts
    ]
    expect(check({ ...clean, receipts: reissued }).failures).toEqual([])
    expect(check({ ...clean, receipts: reissued }).excusedReissues).toBe(1)
    const third = [...reissued, { token: "a#0", fault: "none", excused: false }]
    expect(failuresOf({ receipts: third })).toEqual(["1 tools/call(s) re-sent: a#0 ×3 (drop, none, none)"])
  })

  it("reports a success no server received and a receipt of a call never made", () => {
    expect(failuresOf({ receipts: [...clean.receipts.slice(1), { token: "z#9", fault: "none", excused: false }] }))
      .toEqual([
        "1 tools/call(s) received but never made: z#9",
        "1 call(s) succeeded though no server received them: a#0"
      ])
  })

  it("reports each leaked resource", () => {
    const after: Resources = { fibers: 3, handles: { PipeWrap: 2, TCPSocketWrap: 1 }, fds: 22, children: 1 }
    expect(failuresOf({ after })).toEqual([
      "fibers leaked: 0 at the start, 3 at the end",
      "file descriptors leaked: 20 at the start, 22 at the end",
      "child processes leaked: 0 at the start, 1 at the end",
      "TCPSocketWrap handles leaked: 0 at the start, 1 at the end"
    ])
    expect(failuresOf({ after: { ...idle, handles: {} } })).toEqual([])
    const named = failuresOf({
      before: { ...idle, fds: 2, fdNames: ["0:/dev/null", "1:pipe:[7]"] },
      after: { ...idle, fds: 3, fdNames: ["0:/dev/null", "1:pipe:[7]", "9:socket:[42]"] }
    })
    expect(named).toEqual(["file descriptors leaked: 2 at the start, 3 at the end (new: 9:socket:[42])"])
  })

  it("reports live memory that grew more than 20 % from the first sample to the last", () => {
    expect(failuresOf({ live: [100 * 2 ** 20, 110 * 2 ** 20, 121 * 2 ** 20] })).toEqual([
      "live memory grew more than 20 %: 100.0 / 110.0 / 121.0 MiB (start / middle / end)"
    ])
    // A peak in the middle (calls and reconnects in flight) that is gone by the end is no leak.
    expect(failuresOf({ live: [100 * 2 ** 20, 125 * 2 ** 20, 115 * 2 ** 20] })).toEqual([])
  })

  it("fails a run that made no calls", () => {
    expect(check({ ...clean, started: [], settlements: [], receipts: [] }).failures).toEqual(["no calls were made"])
  })
})

describe("faults", () => {
  it("are a function of the seed, the token and the receipt", () => {
    const draw = (seed: number, token: string, receipt: number) =>
      Array.from({ length: 200 }, (_, i) => choose("http", "2025-11-25", streamFor(seed, `${token}${i}`, receipt)))
    expect(draw(7, "t#", 1)).toEqual(draw(7, "t#", 1))
    expect(draw(7, "t#", 1)).not.toEqual(draw(8, "t#", 1))
    expect(draw(7, "t#", 1)).not.toEqual(draw(7, "t#", 2))
  })

  it("draw every kind of their transport, and session expiry only where there are sessions", () => {
    const kinds = (transport: "stdio" | "http", era: "2025-11-25" | "2026-07-28") => {
      const random = prng(42)
      return new Set(Array.from({ length: 5_000 }, () => choose(transport, era, random)))
    }
    expect([...kinds("stdio", "2026-07-28")].sort()).toEqual(
      ["crash", "duplicate", "garbage", "none", "rpcError", "stall", "unsolicited"]
    )
    expect(kinds("http", "2025-11-25").has("expire")).toBe(true)
    expect(kinds("http", "2026-07-28").has("expire")).toBe(false)
    expect(kinds("http", "2026-07-28").has("drop")).toBe(true)
  })

  it("excuse a re-issue only after a dropped 2026-07-28 HTTP response", () => {
    expect(excusesReissue("http", "2026-07-28", "drop")).toBe(true)
    expect(excusesReissue("http", "2025-11-25", "drop")).toBe(false)
    expect(excusesReissue("stdio", "2026-07-28", "crash")).toBe(false)
    expect(excusesReissue("http", "2026-07-28", "stall")).toBe(false)
  })
})
