/** A `LanguageModel` that answers from a script: no provider, no network. */
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

/** What the scripted model was asked, one entry per call. */
export interface Recorded {
  readonly calls: Array<LanguageModel.ProviderOptions>
}

/** The tool results of the prompt's last message, when it is a tool message. */
export const lastToolResults = (prompt: Prompt.Prompt): ReadonlyArray<Prompt.ToolResultPart> => {
  const last = prompt.content.at(-1)
  return last?.role === "tool" ? last.content : []
}

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 }

/** A call of `name` with `params`, as a provider would answer. */
export const toolCall = (id: string, name: string, params: unknown): Array<Response.PartEncoded> => [
  { type: "tool-call", id, name, params },
  { type: "finish", reason: "tool-calls", usage }
]

/** A final answer. */
export const answer = (text: string): Array<Response.PartEncoded> => [
  { type: "text", text },
  { type: "finish", reason: "stop", usage }
]

/** A language model layer whose every call is answered by `script` (given the call and its number, from 1). */
export const layer = (
  script: (options: LanguageModel.ProviderOptions, call: number) => Array<Response.PartEncoded>
): { readonly layer: Layer.Layer<LanguageModel.LanguageModel>; readonly recorded: Recorded } => {
  const recorded: Recorded = { calls: [] }
  return {
    recorded,
    layer: Layer.effect(
      LanguageModel.LanguageModel,
      LanguageModel.make({
        generateText: (options) =>
          Effect.sync(() => {
            recorded.calls.push(options)
            return script(options, recorded.calls.length)
          }),
        streamText: () => Stream.die("the scripted model does not stream")
      })
    )
  }
}
