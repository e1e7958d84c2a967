/**
 * A server's tool filter, compiled once: allow and deny lists of names with `*` globs (`*`
 * matches any run of characters, nothing else is special). A name is allowed when it matches an
 * `include` pattern (or there is none) and no `exclude` pattern.
 *
 * @internal
 */

/** @internal */
export interface ToolFilterOptions {
  readonly include?: ReadonlyArray<string> | undefined
  readonly exclude?: ReadonlyArray<string> | undefined
}

const patternOf = (globs: ReadonlyArray<string>): RegExp =>
  new RegExp(
    `^(?:${
      globs.map((glob) => glob.split("*").map((part) => part.replace(/[\\^$.+?()[\]{}|/]/g, "\\$&")).join(".*")).join(
        "|"
      )
    })$`,
    "s"
  )

/**
 * The predicate of a filter, or `undefined` when it filters nothing (no cost per call).
 *
 * @internal
 */
export const compile = (filter: ToolFilterOptions | undefined): ((name: string) => boolean) | undefined => {
  const include = filter?.include
  const exclude = filter?.exclude ?? []
  if (include === undefined && exclude.length === 0) return undefined
  const allowed = include === undefined ? undefined : patternOf(include)
  const denied = exclude.length === 0 ? undefined : patternOf(exclude)
  return (name) => (allowed === undefined || allowed.test(name)) && (denied === undefined || !denied.test(name))
}
