/**
 * JSON text whose mistakes are placed (line and column) the same way on every runtime, read by
 * `jsonc-parser`: V8 names a position in `JSON.parse`'s message, JavaScriptCore (Bun) does not.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Jsonc from "jsonc-parser"

const lineAndColumn = (text: string, offset: number): string => {
  const before = text.slice(0, offset).split("\n")
  return `line ${before.length}, column ${before[before.length - 1]!.length + 1}`
}

const reasons: Readonly<Record<string, string>> = {
  InvalidSymbol: "unexpected token",
  ValueExpected: "a value was expected",
  PropertyNameExpected: "a property name was expected",
  ColonExpected: "\":\" was expected",
  CommaExpected: "\",\" was expected",
  CloseBraceExpected: "\"}\" was expected",
  CloseBracketExpected: "\"]\" was expected",
  EndOfFileExpected: "the document should end here",
  UnexpectedEndOfString: "a string is not closed",
  UnexpectedEndOfComment: "a comment is not closed"
}

/**
 * The value of `text` as JSON(C) (`strict`: no comments, no trailing commas), and its first
 * mistake if any.
 *
 * @internal
 */
export const firstMistake = (text: string, strict: boolean): { readonly value: unknown; readonly mistake?: string } => {
  const errors: Array<Jsonc.ParseError> = []
  const value: unknown = Jsonc.parse(text, errors, {
    allowTrailingComma: !strict,
    disallowComments: strict,
    allowEmptyContent: false
  })
  const first = errors[0]
  if (first === undefined) return { value }
  const code = Jsonc.printParseErrorCode(first.error)
  return { value, mistake: `not valid JSON at ${lineAndColumn(text, first.offset)}: ${reasons[code] ?? code}` }
}

/**
 * `JSON.parse`, its failure worded with the line and column of the mistake; the runtime's own
 * message when `jsonc-parser` finds nothing wrong where the runtime did.
 *
 * @internal
 */
export const parse = (text: string): Either.Either<unknown, string> => {
  try {
    return Either.right(JSON.parse(text) as unknown)
  } catch (error) {
    const { mistake } = firstMistake(text, true)
    return Either.left(mistake ?? `not valid JSON: ${error instanceof Error ? error.message : String(error)}`)
  }
}
