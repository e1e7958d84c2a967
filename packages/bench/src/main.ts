/**
 * `npm run bench`: the benchmarks the project is measured on, for our client (inside one Effect,
 * and through the Promise facade), the official clients (`@modelcontextprotocol/sdk` 1.32.2 =
 * v1; `@modelcontextprotocol/client` 2.4.0 = v2, with `versionNegotiation` legacy and auto) and
 * hand-written JSON-RPC loops (the floor, one per protocol era), side by side in one run:
 *
 * - stdio sequential `tools/call echo`, legacy era (fake server) and 2026-07-28 (dual-era SDK v2
 *   server): calls/s, client CPU per 1000 calls, p50/p95/p99 per-call latency (each call timed
 *   into a preallocated `Float64Array`, `latency.ts`), RSS after connect and after the run; ours four
 *   ways: one Effect loop, the Promise facade, the Effect API with one `runPromise` per call
 *   on a `ManagedRuntime` (`ours-runtime`), and that runtime called through
 *   `Connect.fromRuntime`'s Promise client (`ours-from-runtime`);
 * - HTTP `tools/call echo` with 32 requests in flight against the dual-era SDK v2 server on
 *   loopback: calls/s, client CPU per call, p50/p95/p99 per-call latency, and warm connect time;
 * - stdio 8 MiB and 32 MiB `blob` results: wall time and peak client RSS; the same over Streamable
 *   HTTP (`blob-server.ts`, JSON and SSE replies) with client CPU;
 * - stdio connect → first `tools/list`;
 * - `protocol: "auto"` against a legacy stdio server silent on `server/discover`: the first connect,
 *   one with the era remembered (`era-cache.ts`) and a legacy connect;
 * - P7, memory per idle connection: 200 Streamable HTTP connections to one local server, and 50
 *   stdio children (200 node children is too heavy for this bench on 2 cores), RSS and heap per
 *   connection;
 * - fan-out (`fanout.ts`, issue #37): one host connected to 1,000 Streamable HTTP servers (fake
 *   servers spread over 4 processes, `fake-http-fleet.ts`) and 100 stdio children: time to connect
 *   all (16 at a time) and its CPU, one aggregated `tools/list`, 10,000 `echo` calls routed across
 *   the servers with 64 in flight (calls/s, CPU per call, p50/p95/p99), heap and RSS per
 *   connection; ours as one client (Effect API, Promise facade), the official clients one per server;
 * - reconnect (`reconnect.ts`): a stdio server killed, or an HTTP server's sessions lost, under
 *   load → time until a call succeeds again; ours with supervised reconnect, the official
 *   clients with the host code a reconnect needs (`reconnect.ts` has it);
 * - first contact (`first-contact.ts`), every figure from a fresh process, against the fake
 *   server (ours also through the standalone facade, `@mcp-effect/node/standalone`): import CPU
 *   and wall of the package a user imports; a one-shot process (import,
 *   connect, one `echo`, close, exit by itself) timed from spawn to exit, with its own CPU; RSS
 *   after connect and after 1,000 calls; our CLI bundle's `--version` and one-shot `call echo`;
 *   with the project's targets for each, marked met or not;
 * - bundle size (`bundle-size.ts`): the same page program bundled by esbuild with each client,
 *   minified and compressed, and where the bytes come from.
 *
 * Every run is a process of its own (a worker; first contact: a few fresh processes), so
 * `process.cpuUsage` measures one client only; the parent interleaves the clients in rounds
 * (order rotated) and prints medians, and ratios as medians of ratios paired within a round
 * (absolute figures drift between runs; ratios hold). A client that fails a benchmark is
 * reported as `failed: <reason>`; the bench still exits 0.
 *
 *   node packages/bench/dist/main.js [--quick]
 *     env BENCH_ROUNDS (every benchmark; default 3 for stdio echo, 5 for first contact, 2 for the
 *     others), BENCH_CALLS / BENCH_WARMUP (stdio echo, default 5000 / 1000; BENCH_STEADY_WARMUP: the
 *     steady-state rows' warm-up, default 20000), BENCH_HTTP_CALLS
 *     (default 300: the SDK v2 server spends several ms of CPU per HTTP request, so HTTP is
 *     server-bound), BENCH_ONLY (comma-separated benchmark ids, each selecting the ids it starts
 *     with: stdio-echo (both eras; stdio-echo-2026: the 2026 one), stdio-steady (-2026), http, stdio-8mib, stdio-32mib, large-http (-8mib-json, -8mib-sse, -32mib-…),
 *     stdio-connect, idle (idle-http, idle-stdio, idle-one-client: one client of 1,000 servers), era-cache, fanout, reconnect (reconnect-stdio,
 *     reconnect-http), first-contact, validation, bundle-size), BENCH_FANOUT_HTTP / BENCH_FANOUT_STDIO /
 *     BENCH_FANOUT_CALLS (fan-out: servers of each kind and calls, default 1000 / 100 / 10000;
 *     default 1 round),
 *     BENCH_FIRST_CONTACT_ENV=inherit (first contact keeps NODE_EXTRA_CA_CERTS, which it
 *     otherwise leaves out: ~90 ms of start-up per process); `--quick`: small counts (first
 *     contact: 100 calls), 1 round.
 *   node packages/bench/dist/first-contact-child.js import|one-shot|rss <client> [calls]
 *     one fresh process of the first-contact benchmark; prints one JSON line.
 *   node [--cpu-prof] packages/bench/dist/main.js --worker stdio-echo|http|stdio-large|stdio-connect|idle|era-cache|fanout|reconnect
 *       --client ours|ours-promise|ours-standalone|ours-runtime|ours-from-runtime|v1|v2-legacy|v2-auto|raw|raw-2026 [--params '{"calls":3000}']
 *     one worker run; prints one JSON line. With env BENCH_CPU_PROFILE=FILE.cpuprofile the
 *     measured calls of stdio-echo / http (fanout: its connect-all) run under the CPU profiler (start-up and warm-up left
 *     out); `node packages/bench/dist/profile.js FILE.cpuprofile [TOP] [--callers NAME]`
 *     summarizes a profile. With env BENCH_HEAP_SNAPSHOT=PREFIX the idle worker writes heap
 *     snapshots before and after its connections (read them with `heap-retainers.js`).
 *
 * @since 0.1.0
 */
import { isClientName } from "./common.js"
import type { Params } from "./workers.js"
import { runWorker, workerNames } from "./workers.js"

const flag = (name: string): string | undefined => {
  const index = process.argv.indexOf(name)
  return index === -1 ? undefined : process.argv[index + 1]
}

const worker = async (name: string): Promise<void> => {
  const client = flag("--client") ?? ""
  if (!(workerNames as ReadonlyArray<string>).includes(name)) {
    throw new Error(`unknown worker ${JSON.stringify(name)}; expected one of ${workerNames.join(", ")}`)
  }
  if (!isClientName(client)) throw new Error(`unknown client ${JSON.stringify(client)}`)
  const params = JSON.parse(flag("--params") ?? "{}") as Params
  const result = await runWorker(name as typeof workerNames[number], client, params)
  await new Promise<void>((resolve) => process.stdout.write(JSON.stringify(result) + "\n", () => resolve()))
  // Clients that failed may leave handles behind; the result is out, so end here. (Exiting
  // through `process.exit` still writes a `--cpu-prof` profile.)
  process.exit(0)
}

const main = async (): Promise<void> => {
  const name = flag("--worker")
  // Loaded only by the parent: a worker measures its client, not the bench's own modules.
  if (name === undefined) return (await import("./parent.js")).parent(process.argv.includes("--quick"))
  return worker(name)
}

main().then(
  () => {
    process.exitCode = 0
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.stack ?? error.message : String(error))
    process.exitCode = 1
  }
)
