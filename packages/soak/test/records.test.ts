import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Records from "../src/records.js"

describe("records", () => {
  it("keeps every call started and settled in the file, and reads them back as recorded", () => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "soak-records-"))
    try {
      const file = Path.join(dir, "calls.tsv")
      const counts: Array<number> = []
      const records = Records.make(file, (count) => counts.push(count))
      for (let i = 0; i < 1200; i++) records.record.started(`a#${i}`)
      records.record.settled({ token: "a#0", outcome: { _tag: "Ok", token: "a#0" } })
      records.record.settled({ token: "a#1", outcome: { _tag: "Failed", error: "ConnectionError" } })
      records.record.settled({ token: "a#2", outcome: { _tag: "Ok", token: undefined } })
      records.record.settled({ token: "a#3", outcome: { _tag: "Lost" } })
      // Past a batch, lines are in the file rather than held; a flush writes the rest.
      expect(Fs.readFileSync(file, "utf8").split("\n").length).toBeGreaterThan(1000)
      records.flush()
      expect(Fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "")).toHaveLength(1204)
      expect(counts).toEqual([1, 2, 3, 4])
      const { settlements, started } = records.read()
      expect(started).toHaveLength(1200)
      expect(started[1199]).toBe("a#1199")
      expect(settlements).toEqual([
        { token: "a#0", outcome: { _tag: "Ok", token: "a#0" } },
        { token: "a#1", outcome: { _tag: "Failed", error: "ConnectionError" } },
        { token: "a#2", outcome: { _tag: "Ok" } },
        { token: "a#3", outcome: { _tag: "Lost" } }
      ])
    } finally {
      Fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
