/**
 * The soak's stdio server: newline-delimited JSON-RPC on stdin/stdout, one era
 * (`SOAK_ERA`), faults on `tools/call` chosen by `faults.ts` (crash, stall, garbage lines,
 * duplicate and unsolicited responses, JSON-RPC errors). Started by the client under test.
 *
 *   SOAK_ERA=2025-11-25|2026-07-28 SOAK_SEED=N SOAK_LOG=FILE node stdio-server.js
 *
 * @since 0.1.0
 */
import { garbage, unsolicited } from "./faults.js"
import type { Message } from "./protocol.js"
import { answer, receipts, respond, settingsFromEnv, tokenOf } from "./protocol.js"

const settings = settingsFromEnv("stdio")
const receive = receipts(settings)

const write = (lines: ReadonlyArray<string>) => {
  process.stdout.write(lines.map((line) => `${line}\n`).join(""))
}

const onMessage = (message: Message) => {
  if (message.id === undefined || typeof message.method !== "string") return // notification or response
  const params = (message.params ?? {}) as Record<string, unknown>
  const line = respond(message.id, answer(settings.era, message.method, params))
  const token = tokenOf(message)
  if (token === undefined) return write([line])
  const { fault, random } = receive(token)
  switch (fault) {
    case "crash":
      // Half the answer, then the process dies before the rest is flushed.
      process.stdout.write(line.slice(0, Math.floor(line.length / 2)), () => process.exit(70))
      return
    case "stall":
      return
    case "garbage":
      return write([...garbage(random), line])
    case "duplicate":
      return write([line, line])
    case "unsolicited":
      return write([...unsolicited(random, token), line])
    case "rpcError":
      return write([respond(message.id, { error: { code: -32603, message: "injected failure" } })])
    default:
      return write([line])
  }
}

let buffered = ""
process.stdin.setEncoding("utf8")
process.stdin.on("data", (chunk: string) => {
  buffered += chunk
  let newline = buffered.indexOf("\n")
  while (newline >= 0) {
    const text = buffered.slice(0, newline)
    buffered = buffered.slice(newline + 1)
    newline = buffered.indexOf("\n")
    if (text.trim() === "") continue
    try {
      onMessage(JSON.parse(text) as Message)
    } catch {
      // The client sends JSON; a line that is not is ignored like a real server would.
    }
  }
})
process.stdin.on("end", () => process.exit(0))
