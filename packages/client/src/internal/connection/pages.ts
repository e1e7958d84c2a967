/**
 * Explicit cursors: one page of a list and its `nextCursor`, for hosts that page themselves.
 * Pages are not cached (the all-pages methods of `lists.ts` are) and a rejected cursor is the
 * server's error: the caller chose it.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { ConnectError } from "../../McpError.js"
import type { Page, RequestOptions, ServerConnection } from "../../ServerConnection.js"
import * as Decode from "./decode.js"
import type * as Lists from "./lists.js"

/** What a page uses of the core. @internal */
export type Needs = Pick<Lists.Needs, "server" | "send" | "requireComplete">

/** One page of `method` from `cursor`. @internal */
export const page = <K extends Lists.ListKey, A>(
  core: Needs,
  method: string,
  key: K,
  decode: Decode.Decoder<{ readonly [P in K]: ReadonlyArray<A> } & { readonly nextCursor?: string | undefined }>,
  cursor: string | undefined,
  requestOptions: RequestOptions | undefined
): Effect.Effect<Page<A>, ConnectError> =>
  Effect.flatMap(
    core.send({ method, params: cursor === undefined ? undefined : { cursor }, options: requestOptions }),
    (raw) =>
      Effect.flatMap(core.requireComplete(method, raw), () =>
        Effect.map(decode(core.server, method, raw), (decoded) => ({
          items: decoded[key],
          nextCursor: decoded.nextCursor
        })))
  )

/** The page methods but tools' (`tools.ts` filters the tools a call could not reach). @internal */
export const make = (core: Needs): Pick<
  ServerConnection,
  "listPromptsPage" | "listResourcesPage" | "listResourceTemplatesPage"
> => ({
  listPromptsPage: (cursor, requestOptions) =>
    page(core, "prompts/list", "prompts", Decode.prompts, cursor, requestOptions),
  listResourcesPage: (cursor, requestOptions) =>
    page(core, "resources/list", "resources", Decode.resources, cursor, requestOptions),
  listResourceTemplatesPage: (cursor, requestOptions) =>
    page(core, "resources/templates/list", "resourceTemplates", Decode.templates, cursor, requestOptions)
})
