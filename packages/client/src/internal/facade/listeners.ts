/**
 * The host's listeners: a throwing one is logged to the console and never breaks the client.
 *
 * @internal
 */
import type { StateListener } from "./types.js"

/** Calls a host listener; what it throws is warned about, never propagated. */
export const callGuarded = (what: string, call: () => void): void => {
  try {
    call()
  } catch (error) {
    console.warn(`mcp-effect: a ${what} listener threw: ${String(error)}`)
  }
}

/** The listeners of a facade's state changes: the option's, then the ones added later. */
export const stateListeners = (options: { readonly onStateChange?: StateListener | undefined }) => {
  const listeners = new Set<StateListener>()
  if (options.onStateChange !== undefined) listeners.add(options.onStateChange)
  const dispatch: StateListener = (server, state) => {
    for (const listener of listeners) callGuarded("state", () => listener(server, state))
  }
  return { listeners, dispatch }
}
