// Connects over HTTP, calls a tool, closes, and prints "closed", then, one turn of the event
// loop later, what still keeps the process alive (`process.getActiveResourcesInfo()`: the
// ref'd handles, requests and timers) as a JSON array.
//   node closeHttp.mjs <facade|layer> <url> <tool>
import * as McpClient from "@mcp-effect/client/McpClient";
import * as Sse from "@mcp-effect/client/Sse";
import * as StreamableHttp from "@mcp-effect/client/StreamableHttp";
import { connect, NodeMcpClient } from "@mcp-effect/node";
import * as Effect from "effect/Effect";

const [mode, url, tool] = process.argv.slice(2);

if (mode === "facade") {
  const client = await connect(url);
  await client.callTool(tool, { message: "hi" });
  await client.close();
} else {
  const config = url.endsWith("/sse")
    ? Sse.config({ name: "http", url })
    : StreamableHttp.config({ name: "http", url });
  await Effect.flatMap(McpClient.McpClient, (client) => client.callTool(tool, { message: "hi" })).pipe(
    Effect.provide(NodeMcpClient.layer({ servers: [config] })),
    Effect.runPromise,
  );
}
process.stdout.write("closed\n");
let turns = 0;
const look = () => {
  const left = process.getActiveResourcesInfo().filter((r) => r !== "PipeWrap" && r !== "TTYWrap");
  process.stdout.write(`${turns} ${JSON.stringify(left)}\n`);
  if (left.some((r) => r !== "Immediate") && ++turns < 20) setImmediate(look);
};
setImmediate(look);
