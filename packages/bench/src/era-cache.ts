/**
 * The era cache row: `connect()` with `protocol: "auto"` against a legacy stdio server that stays
 * silent on `server/discover` (the fake server with a scripted silence): the first connect pays
 * the probe (the default 5 s `discoverTimeout`), a connect with the era remembered in a file
 * opens with `initialize` at once, and a `protocol: "legacy"` connect is the floor.
 *
 * @since 0.2.0
 */
import { connect } from "@mcp-effect/node/Connect"
import type { ConnectOptions } from "@mcp-effect/node/Connect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fakeServerBin, median, within } from "./common.js"
import type { Params, WorkerResult } from "./workers.js"

const CONNECT_TIMEOUT_MS = 60_000

/** The fake server, silent on `server/discover` (a legacy server that ignores unknown requests). @since 0.2.0 */
export const silentLegacy: ReadonlyArray<string> = [
  process.execPath,
  fakeServerBin,
  "--faults",
  JSON.stringify([{ method: "server/discover", action: "silence" }])
]

/** Spawn → connected, in ms; the connection is closed afterwards. */
const timedConnect = async (options: ConnectOptions): Promise<number> => {
  const started = performance.now()
  const client = await within(connect(silentLegacy, options), CONNECT_TIMEOUT_MS, "connect")
  const ms = performance.now() - started
  const era = client.servers[0]?.era
  await client.close()
  if (era !== "legacy") throw new Error(`connected as ${String(era)}, not legacy`)
  return ms
}

/**
 * The worker: one warm-up connect (code loaded), the first `auto` connect with an empty era file,
 * then `connects` pairs of an `auto` connect through that file and a `legacy` connect (in
 * alternating order).
 *
 * @since 0.2.0
 */
export const run = async (params: Params): Promise<WorkerResult> => {
  const connects = params.connects ?? 6
  const dir = mkdtempSync(join(tmpdir(), "mcp-bench-era-"))
  const eraCache = join(dir, "era.json")
  const legacy: ConnectOptions = { protocol: "legacy", eraCache: false }
  try {
    await timedConnect(legacy)
    const first = await timedConnect({ eraCache })
    const remembered: Array<number> = []
    const floor: Array<number> = []
    const over: Array<number> = []
    // Alternated, so that neither kind always runs just after the other's close.
    for (let i = 0; i < connects; i++) {
      const [r, l] = i % 2 === 0
        ? [await timedConnect({ eraCache }), await timedConnect(legacy)]
        : await timedConnect(legacy).then(async (l) => [await timedConnect({ eraCache }), l])
      remembered.push(r)
      floor.push(l)
      over.push(r - l)
    }
    return {
      ok: true,
      era: "legacy",
      metrics: {
        firstConnectMs: first,
        rememberedConnectMs: median(remembered),
        legacyConnectMs: median(floor),
        rememberedOverLegacyMs: median(over)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
