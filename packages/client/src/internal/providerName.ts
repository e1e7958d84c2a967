/**
 * Tool names as LLM providers accept them: at most 64 characters of `[A-Za-z0-9_-]`, starting
 * with a letter or `_` (OpenAI and Anthropic take `^[a-zA-Z0-9_-]{1,64}$`; Gemini also wants a
 * letter or `_` first). A valid name is kept as it is; any other is sanitised (each other
 * character becomes `_`, `_` is put before a leading digit or `-`), cut to leave room, and given
 * `_` and 8 hex digits of a hash of the whole original name, so that two names that sanitise
 * alike still differ and the same name maps the same way in every run and runtime.
 *
 * @internal
 */

/** The most characters a provider takes in a tool name. @internal */
export const MAX_LENGTH = 64

const VALID = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/

/** Whether providers take `name` as it is. @internal */
export const isValid = (name: string): boolean => VALID.test(name)

// FNV-1a (32 bits) over the UTF-16 code units: the same in every JavaScript runtime, no
// platform crypto needed (the core runs in browsers too).
const hash = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(16).padStart(8, "0")
}

/** `name`, or its sanitised form with a hash suffix when providers would refuse it. @internal */
export const providerName = (name: string): string => {
  if (isValid(name)) return name
  const sanitised = name.replace(/[^A-Za-z0-9_-]/g, "_")
  const head = /^[A-Za-z_]/.test(sanitised) ? sanitised : `_${sanitised}`
  const suffix = `_${hash(name)}`
  return `${head.slice(0, MAX_LENGTH - suffix.length)}${suffix}`
}

/**
 * Provider names for a list of names, in order and unique: a name that maps to one already
 * given gets a hash of its position as well, so the list's mapping stays reversible.
 *
 * @internal
 */
export const uniqueProviderNames = (names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const taken = new Set<string>()
  return names.map((name) => {
    let mapped = providerName(name)
    for (let n = 2; taken.has(mapped); n++) mapped = providerName(`${name}\u0000${n}`)
    taken.add(mapped)
    return mapped
  })
}

/** Whether `name` may be a provider name this module made (a hash suffix): worth a lookup. @internal */
export const mayBeMapped = (name: string): boolean => /_[0-9a-f]{8}$/.test(name)
