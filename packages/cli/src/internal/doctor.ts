/**
 * `mcp-effect doctor [SERVER|TARGET]`: which servers to diagnose (a configured server by name,
 * else the word as a target; without a word, `--target`s and the configuration's enabled
 * servers), and the report as text. The diagnosis is `NodeDoctor.diagnose`.
 *
 * @internal
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as McpConfig from "@mcp-effect/client/McpConfig"
import type * as McpError from "@mcp-effect/client/McpError"
import type * as Target from "@mcp-effect/client/Target"
import * as NodeDoctor from "@mcp-effect/node/NodeDoctor"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UnavailableError, UsageError } from "./errors.js"
import { plural } from "./format.js"
import * as Output from "./output.js"
import { bold, red } from "./output.js"

/** One thing to diagnose. */
export interface Subject {
  readonly name: string
  readonly target: Target.Target
  readonly options: NodeDoctor.Options
}

/** A configured entry as the doctor sees it; OAuth settings are left out: it never signs in. */
const fromEntry = (entry: McpConfig.Entry): Effect.Effect<Subject, McpError.ConfigError> =>
  entry.type === "stdio"
    ? Effect.map(McpConfig.toConfig(entry), (config) => ({
      name: entry.name,
      target: [entry.command, ...entry.args],
      options: { config }
    }))
    : Effect.map(McpConfig.toConfig({ ...entry, oauth: undefined }), (config) => ({
      name: entry.name,
      target: entry.url,
      options: { config, headers: entry.headers }
    }))

/** @internal What the command line names. */
export interface Selection {
  readonly word: string | undefined
  readonly targets: ReadonlyArray<string>
  readonly config: string | undefined
  readonly server: string | undefined
}

/**
 * The subjects of a command line.
 *
 * @internal
 */
export const subjects = (
  selection: Selection
): Effect.Effect<ReadonlyArray<Subject>, McpError.ConfigError | UsageError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const file = selection.config !== undefined
      ? Option.some(yield* McpConfig.resolve(selection.config))
      : selection.targets.length === 0
      ? yield* McpConfig.find()
      : Option.none()
    const entries = Option.isSome(file) ? yield* McpConfig.loadEntries(file.value) : []
    const wanted = selection.word ?? selection.server
    const named = entries.find((entry) => entry.name === wanted)
    if (named !== undefined) return [yield* fromEntry(named)]
    const asTarget = (target: string): Subject => ({ name: target, target, options: {} })
    if (selection.word !== undefined) return [asTarget(selection.word)]
    if (selection.server !== undefined) {
      return yield* new UsageError({ message: `no server named "${selection.server}" in the configuration` })
    }
    const configured = yield* Effect.forEach(entries.filter((entry) => !entry.disabled), fromEntry)
    const all = [...configured, ...selection.targets.map(asTarget)]
    if (all.length === 0) {
      return yield* new UsageError({ message: "doctor: name a server or a target (mcp-effect doctor https://…/mcp)" })
    }
    return all
  })

/** @internal */
export const diagnoseAll = (
  list: ReadonlyArray<Subject>,
  timeout: number | undefined
): Effect.Effect<
  ReadonlyArray<NodeDoctor.Report & { readonly name: string }>,
  never,
  HttpClient.HttpClient | Target.Requirements
> =>
  Effect.forEach(list, (subject) =>
    Effect.map(
      NodeDoctor.diagnose(subject.target, { ...subject.options, ...(timeout === undefined ? {} : { timeout }) }),
      (report) => ({ name: subject.name, ...report })
    ))

const MARK: Record<NodeDoctor.StepStatus, string> = { ok: "ok  ", warn: "warn", fail: "FAIL", skip: "-   " }

/**
 * The reports for a person: a line per step (its mark, name, time, what was seen), and the hint
 * under a step that did not pass. Every detail was escaped by the doctor.
 *
 * @internal
 */
export const text = (reports: ReadonlyArray<NodeDoctor.Report & { readonly name: string }>, ansi: boolean): string =>
  reports.map((report) => {
    const title = report.name === report.target ? report.target : `${report.name} (${report.target})`
    const lines = report.steps.map((step) => {
      const mark = step.status === "fail" ? red(ansi, MARK[step.status]) : MARK[step.status]
      const time = step.status === "skip" ? "" : `${step.ms} ms`
      const line = `  ${mark} ${step.name.padEnd(8)} ${time.padStart(8)}  ${step.detail}`
      return step.hint === undefined ? line : `${line}\n${" ".repeat(26)}hint: ${step.hint}`
    })
    return [bold(ansi, title), ...lines].join("\n")
  }).join("\n\n")

/**
 * The command: diagnoses every subject, prints the reports (JSON with `--json`), and fails with
 * `UnavailableError` (exit 1) when a server failed a step; warnings alone succeed.
 *
 * @internal
 */
export const run = (selection: Selection, timeout: number | undefined, mode: Output.Mode) =>
  Effect.gen(function*() {
    const reports = yield* diagnoseAll(yield* subjects(selection), timeout)
    yield* Output.emit(mode, { reports }, () => text(reports, mode.stdoutAnsi))
    const failed = reports.filter((report) => !report.ok).map((report) => report.name)
    if (failed.length > 0) {
      return yield* new UnavailableError({
        servers: failed,
        message: `${failed.length} of ${plural(reports.length, "server")} failed a step`
      })
    }
  })
