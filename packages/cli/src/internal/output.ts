/**
 * How a run writes: JSON or text, and whether ANSI sequences may reach each stream.
 *
 * @internal
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

/** @internal */
export interface Mode {
  /** `--json`: one JSON document on stdout. */
  readonly json: boolean
  readonly stdoutAnsi: boolean
  readonly stderrAnsi: boolean
}

/**
 * ANSI only on a terminal, never with `NO_COLOR` (https://no-color.org); `FORCE_COLOR` (not
 * `0`) forces it where there is no terminal.
 */
const ansiAllowed = (stream: { readonly isTTY?: boolean | undefined }, env: NodeJS.ProcessEnv): boolean => {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0") return true
  return stream.isTTY === true
}

/** Arguments before `--`, where options are. */
const optionWords = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const end = args.indexOf("--")
  return end === -1 ? args : args.slice(0, end)
}

/**
 * The mode of a command line (its arguments, without executable and script).
 *
 * @internal
 */
export const modeOf = (args: ReadonlyArray<string>): Mode => ({
  json: optionWords(args).includes("--json"),
  stdoutAnsi: ansiAllowed(process.stdout, process.env),
  stderrAnsi: ansiAllowed(process.stderr, process.env)
})

/** @internal */
export const hasOption = (args: ReadonlyArray<string>, ...names: ReadonlyArray<string>): boolean =>
  optionWords(args).some((word) => names.includes(word))

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g

/** @internal */
export const stripAnsi = (text: string): string => text.replace(ANSI, "")

/** @internal Bold on an ANSI stream, as is elsewhere. */
export const bold = (ansi: boolean, text: string): string => ansi ? `\u001b[1m${text}\u001b[22m` : text

/** @internal Red on an ANSI stream, as is elsewhere. */
export const red = (ansi: boolean, text: string): string => ansi ? `\u001b[31m${text}\u001b[39m` : text

/**
 * Runs `effect` with a console that drops ANSI sequences from the streams that may not have
 * them (what @effect/cli prints is styled whatever the stream).
 *
 * @internal
 */
export const withPlainStreams = <A, E, R>(mode: Mode, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  mode.stdoutAnsi && mode.stderrAnsi ? effect : Effect.flatMap(Effect.console, (base) => {
    const plain = (ansi: boolean) => (args: ReadonlyArray<unknown>) =>
      ansi ? args : args.map((arg) => typeof arg === "string" ? stripAnsi(arg) : arg)
    const out = plain(mode.stdoutAnsi)
    const err = plain(mode.stderrAnsi)
    const console: Console.Console = {
      ...base,
      log: (...args) => base.log(...out(args)),
      info: (...args) => base.info(...out(args)),
      error: (...args) => base.error(...err(args)),
      warn: (...args) => base.warn(...err(args)),
      unsafe: {
        ...base.unsafe,
        log: (...args) => base.unsafe.log(...out(args)),
        info: (...args) => base.unsafe.info(...out(args)),
        error: (...args) => base.unsafe.error(...err(args)),
        warn: (...args) => base.unsafe.warn(...err(args))
      }
    }
    return Effect.withConsole(effect, console)
  })

const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g

/**
 * A value as the JSON document of a command. JSON.stringify escapes C0 controls; C1 controls
 * (`\u009b` is a CSI on some terminals) and line separators are escaped too, so server text
 * cannot drive a terminal that shows the document.
 *
 * @internal
 */
export const json = (value: unknown, compact = false): string =>
  JSON.stringify(value, null, compact ? undefined : 2).replace(
    UNSAFE_IN_JSON,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
  )

/** @internal Prints the command's result: its JSON document, or its text. */
export const emit = (mode: Mode, value: unknown, text: () => string): Effect.Effect<void> =>
  Console.log(mode.json ? json(value) : text())

/** @internal Runs `effect` with its `Console.log` lines going to stderr. */
export const toStderr = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.console, (base) =>
    Effect.withConsole(effect, {
      ...base,
      log: (...args) => base.error(...args),
      unsafe: { ...base.unsafe, log: (...args) => base.unsafe.error(...args) }
    }))
