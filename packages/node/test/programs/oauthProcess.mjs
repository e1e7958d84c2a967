// One host process using OAuth through the facade with a token file, then exiting:
//   node oauthProcess.mjs <mcp url> <storage file> <interactive|silent> [--barrier]
// interactive: a headless browser approves (prints "browser" when it is asked);
// silent: no browser flow at all (an authorization needed fails with AuthorizationRequiredError).
// --barrier: prints "ready" and waits for a line on stdin before its first request, so that
// several processes race. An encryption key for the file comes from MCP_EFFECT_OAUTH_KEY.
// Prints one JSON line with the outcome; exits 0 on success, 1 otherwise.
import { connect } from "@mcp-effect/node";
import * as Readline from "node:readline";

const [url, file, mode, ...flags] = process.argv.slice(2);

// What a browser whose user approves at once does: follow the authorization URL, request the callback.
const approve = (authorizationUrl) => {
  process.stdout.write("browser\n");
  void fetch(authorizationUrl, { redirect: "manual" })
    .then((answer) => fetch(answer.headers.get("location")))
    .then((callback) => callback.arrayBuffer())
    .catch(() => {});
};

if (flags.includes("--barrier")) {
  process.stdout.write("ready\n");
  const lines = Readline.createInterface({ input: process.stdin });
  await new Promise((resolve) => lines.once("line", resolve));
  lines.close();
}

const oauth = {
  storage: file,
  interactive: mode === "interactive",
  openBrowser: approve,
  printUrl: () => {},
  // Tokens of the fake live a few seconds: refresh only when one is about to expire.
  refreshSkew: 1,
};

try {
  const client = await connect(url, { oauth });
  const tools = await client.listTools();
  await client.close();
  process.stdout.write(`${JSON.stringify({ ok: true, tools: tools.length })}\n`);
} catch (e) {
  process.stdout.write(`${JSON.stringify({ ok: false, tag: e?._tag ?? e?.name, message: String(e?.message) })}\n`);
  process.exitCode = 1;
}
