/**
 * JSON with comments and trailing commas (VS Code's, Zed's, OpenCode's settings), read by
 * `jsonc-parser`, with the line and column of the first mistake.
 *
 * @internal
 */
import * as Either from "effect/Either"
import { firstMistake } from "../jsonText.js"

/**
 * Parses JSON that may hold comments and trailing commas; Left: what is wrong, and where.
 *
 * @internal
 */
export const parse = (text: string): Either.Either<unknown, string> => {
  const { mistake, value } = firstMistake(text.replace(/^\uFEFF/, ""), false)
  return mistake === undefined ? Either.right(value) : Either.left(mistake)
}
