// A program that uses the standalone facade only (run with `--import ./recordLoads.mjs`): a call
// over stdio, a call the server rejects, a target rejected before anything starts. Prints one
// JSON line: what it saw, and every module URL loaded outside Node's built-ins.
//   node --import ./recordLoads.mjs standalone.mjs <fake server bin>
import { ConfigError, connect, isMcpError, ServerError } from "@mcp-effect/node/standalone";
import { readFileSync } from "node:fs";

const [fakeServer] = process.argv.slice(2);
const client = await connect([process.execPath, fakeServer]);
const echoed = (await client.callTool("echo", { message: "hi" })).content;
const rejected = await client.callTool("no-such-tool", {}).catch((error) => error);
await client.close();
const misspelled = await connect("ftp://example.com/mcp").catch((error) => error);
const loaded = readFileSync(process.env.RECORD_LOADS, "utf8").split("\n").filter((url) => url.startsWith("file:"));
console.log(JSON.stringify({
  echoed,
  rejected: { tag: rejected._tag, isServerError: rejected instanceof ServerError, isMcpError: isMcpError(rejected) },
  misspelled: { tag: misspelled._tag, isConfigError: misspelled instanceof ConfigError },
  loaded,
}));
