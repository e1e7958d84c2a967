/**
 * The base of the client's error classes.
 *
 * @internal
 */
import * as Schema from "effect/Schema"

/**
 * `Schema.TaggedError`, its constructor checking its fields only when asked
 * (`new E(props, { disableValidation: false })`): every error here is built from values the
 * type checker has already checked, and the check is costly for an error with a `cause` (see
 * docs/performance.md, "Idioms"). Decoding an error with its schema still validates.
 *
 * @internal
 */
export const TaggedError = <Self = never>(): ReturnType<typeof Schema.TaggedError<Self>> => {
  const make = Schema.TaggedError<Self>()
  return ((tag: string, fields: Schema.Struct.Fields, annotations?: unknown) => {
    const Base = make(tag, fields, annotations as never) as unknown as new(
      props: unknown,
      options?: Schema.MakeOptions
    ) => object
    return class extends Base {
      constructor(props: unknown, options: Schema.MakeOptions = true) {
        super(props, options)
      }
    }
  }) as unknown as ReturnType<typeof Schema.TaggedError<Self>>
}
