/**
 * A connection doctor: checks, in order, what a connection to an MCP server needs — DNS, TCP,
 * TLS, the HTTP endpoint, the protected-resource and authorization-server metadata, the era
 * (`server/discover` or `initialize`), authorization, and `tools/list` — and reports each step
 * with its outcome, its timing and, when it did not pass, a hint at the fix. The steps after a
 * failure are skipped (they could only fail for the same reason). It never signs in: a server
 * that needs a token is reported as such. Text a server sent is escaped before it is kept.
 *
 * ```ts
 * import * as NodeChildProcess from "@mcp-effect/node/NodeChildProcess"
 * import * as NodeDoctor from "@mcp-effect/node/NodeDoctor"
 * import * as UndiciHttpClient from "@mcp-effect/node/UndiciHttpClient"
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 *
 * const report = await Effect.runPromise(
 *   NodeDoctor.diagnose("https://mcp.example.com/mcp").pipe(
 *     Effect.provide(Layer.merge(UndiciHttpClient.layer, NodeChildProcess.layer))
 *   )
 * )
 * for (const step of report.steps) console.log(step.name, step.status, step.detail, step.hint ?? "")
 * ```
 *
 * @since 0.2.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type { ServerConfig } from "@mcp-effect/client/ServerConfig"
import type * as Target from "@mcp-effect/client/Target"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as internal from "./internal/doctor/diagnose.js"
import * as NodeChildProcess from "./NodeChildProcess.js"
import * as UndiciHttpClient from "./UndiciHttpClient.js"

/**
 * The steps, in the order they run (a stdio server has `era`, `auth` and `tools` only).
 *
 * @since 0.2.0
 * @category models
 */
export type StepName = "dns" | "tcp" | "tls" | "http" | "metadata" | "era" | "auth" | "tools"

/**
 * `warn`: it works, with something to fix; `skip`: not run (not applicable, or after a failure).
 *
 * @since 0.2.0
 * @category models
 */
export type StepStatus = "ok" | "warn" | "fail" | "skip"

/**
 * @since 0.2.0
 * @category models
 */
export interface Step {
  readonly name: StepName
  readonly status: StepStatus
  /** How long the step took, in milliseconds. */
  readonly ms: number
  /** What was seen (escaped). */
  readonly detail: string
  /** What to try, for a step that did not pass. */
  readonly hint?: string | undefined
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Report {
  /** The URL or command line diagnosed (a URL without its query or credentials). */
  readonly target: string
  /** No step failed. */
  readonly ok: boolean
  readonly steps: ReadonlyArray<Step>
}

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** Sent with every request (a token: `{ authorization: "Bearer …" }`). */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** The time limit of each step (default 10 seconds). */
  readonly timeout?: Duration.DurationInput | undefined
  /**
   * What the era, auth and tools steps connect with (default: the target's configuration, with
   * `headers`); the CLI passes a configuration file's entry. Its `auth` is not used: the doctor
   * never signs in.
   */
  readonly config?: ServerConfig<Target.Requirements> | undefined
}

/**
 * Diagnoses a target: a URL, a command line or an argv (see `Target`).
 *
 * @since 0.2.0
 * @category diagnosis
 */
export const diagnose: (
  target: Target.Target,
  options?: Options
) => Effect.Effect<Report, never, HttpClient.HttpClient | Target.Requirements> = internal.diagnose

/**
 * The Promise form of {@link diagnose}, for code outside Effect: Node's HTTP client and child
 * processes. It never rejects: a failure is a step of the report.
 *
 * ```ts
 * import { doctor } from "@mcp-effect/node"
 *
 * const report = await doctor("https://mcp.example.com/mcp", { headers: { authorization: "Bearer …" } })
 * if (!report.ok) console.log(report.steps.filter((step) => step.status === "fail"))
 * ```
 *
 * @since 0.2.0
 * @category diagnosis
 */
export const doctor = (target: Target.Target, options?: Options): Promise<Report> =>
  Effect.runPromise(
    diagnose(target, options).pipe(Effect.provide(Layer.merge(UndiciHttpClient.layer, NodeChildProcess.layer)))
  )
