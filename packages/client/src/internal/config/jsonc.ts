/**
 * JSON with comments and trailing commas (VS Code's, Zed's, OpenCode's settings), read by
 * `jsonc-parser`, with the line and column of the first mistake.
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
 * Parses JSON that may hold comments and trailing commas; Left: what is wrong, and where.
 *
 * @internal
 */
export const parse = (text: string): Either.Either<unknown, string> => {
  const errors: Array<Jsonc.ParseError> = []
  const clean = text.replace(/^\uFEFF/, "")
  const value: unknown = Jsonc.parse(clean, errors, { allowTrailingComma: true, allowEmptyContent: false })
  const first = errors[0]
  if (first === undefined) return Either.right(value)
  const code = Jsonc.printParseErrorCode(first.error)
  const reason = reasons[code] ?? code
  return Either.left(`not valid JSON at ${lineAndColumn(clean, first.offset)}: ${reason}`)
}
