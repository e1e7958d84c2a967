/**
 * The soak's driver: one client per target (stdio and Streamable HTTP, each era) through the
 * public API (`NodeMcpClient.layer`, `McpClient.callTool`), each making its share of the calls
 * with a few in flight, every call watched so one that never settles is counted as lost.
 *
 * @since 0.1.0
 */
import * as McpClient from "@mcp-effect/client/McpClient"
import * as Stdio from "@mcp-effect/client/Stdio"
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp"
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ChildProcess from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import type { Era, TransportKind } from "./faults.js"
import type { Outcome, Settlement } from "./invariants.js"

/** @since 0.1.0 */
export interface Target {
  readonly name: string
  readonly transport: TransportKind
  readonly era: Era
}

/** @since 0.1.0 */
export const targets: ReadonlyArray<Target> = (["stdio", "http"] as const).flatMap((transport) =>
  (["2025-11-25", "2026-07-28"] as const).map((era) => ({ name: `${transport}-${era}`, transport, era }))
)

/** @since 0.1.0 */
export interface Settings {
  readonly seed: number
  /** Calls per target. */
  readonly calls: number
  /** Calls in flight per target. */
  readonly concurrency: number
  readonly readTimeoutMs: number
  /** Multiplies every fault's weight (0: none). */
  readonly faultScale: number
  /** Put before every token (the warm-up's calls are told apart by it). */
  readonly tokenPrefix?: string | undefined
  /** The receipts log the servers append to. */
  readonly log: string
}

const here = Path.dirname(fileURLToPath(import.meta.url))

const serverEnv = (settings: Settings, target: Target) => ({
  SOAK_ERA: target.era,
  SOAK_SEED: String(settings.seed),
  SOAK_LOG: settings.log,
  SOAK_FAULT_SCALE: String(settings.faultScale)
})

/** Starts the HTTP server of a target in a child process; stopped (and awaited) with the scope. */
const httpServer = (settings: Settings, target: Target) =>
  Effect.acquireRelease(
    Effect.async<{ readonly child: ChildProcess.ChildProcess; readonly url: string }, Error>((resume) => {
      const child = ChildProcess.spawn(process.execPath, [Path.join(here, "http-server.js")], {
        env: { ...serverEnv(settings, target), PATH: process.env.PATH ?? "" },
        stdio: ["ignore", "pipe", "inherit"]
      })
      let out = ""
      child.stdout.setEncoding("utf8")
      child.stdout.on("data", (chunk: string) => {
        out += chunk
        const port = /listening (\d+)/.exec(out)?.[1]
        if (port !== undefined) resume(Effect.succeed({ child, url: `http://127.0.0.1:${port}/mcp` }))
      })
      child.on("exit", (code) => resume(Effect.fail(new Error(`HTTP server exited with ${code} before listening`))))
    }),
    ({ child }) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGTERM")
      })
  )

const serverConfig = (settings: Settings, target: Target, url: string | undefined) => {
  const readTimeout = Duration.millis(settings.readTimeoutMs)
  return target.transport === "stdio"
    ? Stdio.config({
      name: target.name,
      command: process.execPath,
      args: [Path.join(here, "stdio-server.js")],
      env: serverEnv(settings, target),
      readTimeout
    })
    : StreamableHttp.config({ name: target.name, url: url!, readTimeout })
}

const textOf = (result: { readonly content?: ReadonlyArray<unknown> }): string | undefined => {
  const first = result.content?.[0] as { readonly type?: unknown; readonly text?: unknown } | undefined
  return first?.type === "text" && typeof first.text === "string" ? first.text : undefined
}

const outcomeOf = (
  token: string,
  exit: Exit.Exit<{ readonly content?: ReadonlyArray<unknown> }, { readonly _tag: string }>
) =>
  Exit.match(exit, {
    // The call's own token when it matches, so a long run keeps no second copy of each.
    onSuccess: (result): Outcome => {
      const text = textOf(result)
      return { _tag: "Ok", token: text === token ? token : text }
    },
    onFailure: (cause): Outcome => {
      const failure = Cause.failureOption(cause)
      if (failure._tag === "Some") return { _tag: "Failed", error: failure.value._tag }
      return { _tag: "Failed", error: Cause.isInterruptedOnly(cause) ? "Interrupted" : "Defect" }
    }
  })

/** What the driver reports as calls start and settle. */
export interface Recorder {
  readonly started: (token: string) => void
  readonly settled: (settlement: Settlement) => void
}

/**
 * Runs one target's calls to their end and closes its client; a client that cannot connect
 * fails with the error's tag.
 *
 * @since 0.1.0
 */
export const runTarget = (settings: Settings, target: Target, recorder: Recorder): Effect.Effect<void, string> =>
  Effect.scoped(Effect.gen(function*() {
    const server = target.transport === "http"
      ? yield* Effect.mapError(httpServer(settings, target), (error) => error.message)
      : undefined
    const layer = NodeMcpClient.layer({
      servers: [serverConfig(settings, target, server?.url)],
      clientInfo: { name: "mcp-effect-soak", version: "0.1.0" }
    })
    const context = yield* Effect.mapError(Layer.build(layer), (error) => `${target.name}: ${error._tag}`)
    const client = Context.get(context, McpClient.McpClient)
    // Far past every deadline the client has (read timeout, reopen, retries): a call still
    // unsettled then is lost.
    const watchdog = Duration.millis(settings.readTimeoutMs * 3 + 15_000)
    const call = (token: string) =>
      Effect.suspend(() => {
        recorder.started(token)
        return client.callTool("echo", { token }, { server: target.name }).pipe(
          Effect.exit,
          Effect.map((exit) => outcomeOf(token, exit)),
          Effect.disconnect,
          Effect.timeoutTo({
            duration: watchdog,
            onSuccess: (o): Outcome => o,
            onTimeout: (): Outcome => ({ _tag: "Lost" })
          }),
          Effect.map((outcome) => recorder.settled({ token, outcome }))
        )
      })
    const tokens = Array.from({ length: settings.calls }, (_, i) => `${settings.tokenPrefix ?? ""}${target.name}#${i}`)
    yield* Effect.forEach(tokens, call, { concurrency: settings.concurrency, discard: true })
  }))
