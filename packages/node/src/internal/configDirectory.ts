/**
 * The user's configuration directory, where the facade and the CLI keep their files (OAuth
 * tokens, remembered eras).
 *
 * @internal
 */
import * as Os from "node:os"
import * as Path from "node:path"

/** `$XDG_CONFIG_HOME`, else `%APPDATA%` on Windows, `~/Library/Application Support` on macOS, `~/.config`. */
export const configDirectory = (): string => {
  const env = process.env
  return env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== ""
    ? env.XDG_CONFIG_HOME
    : process.platform === "win32" && env.APPDATA !== undefined
    ? env.APPDATA
    : process.platform === "darwin"
    ? Path.join(Os.homedir(), "Library", "Application Support")
    : Path.join(Os.homedir(), ".config")
}
