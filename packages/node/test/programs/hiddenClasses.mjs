// Whether per-connection and per-item objects share V8 hidden classes (run with
// --allow-natives-syntax): a getter written in an object literal, or a literal that opens with a
// spread on Node 20, gives each object a class (or a dictionary) of its own. Prints one line each.
//   node --allow-natives-syntax hiddenClasses.mjs <fake server bin>
import * as McpClient from "@mcp-effect/client/McpClient";
import * as Stdio from "@mcp-effect/client/Stdio";
import * as NodeMcpClient from "@mcp-effect/node/NodeMcpClient";
import * as Effect from "effect/Effect";

const [fakeServer] = process.argv.slice(2);
const servers = ["a", "b", "c"].map((name) =>
  Stdio.config({ name, command: process.execPath, args: [fakeServer], stderr: "ignore" })
);
// Natives syntax is not JavaScript the linter parses: compiled at run time.
const fast = new Function("o", "return %HasFastProperties(o)");
const sameMap = new Function("a", "b", "return %HaveSameMap(a, b)");
const sameClass = (objects) => objects.every((o) => sameMap(o, objects[0]));

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient;
  console.log(`client fast=${fast(client)}`);
  const connections = client.servers;
  yield* Effect.forEach(connections, (c) => c.connect);
  console.log(`connections fast=${connections.every(fast)} shared=${sameClass(connections)}`);
  console.log(`kind=${connections[0].kind} enumerable=${Object.keys(connections[0]).includes("kind")}`);
  const tools = yield* client.listTools();
  console.log(`listed tools fast=${tools.every(fast)} shared=${sameClass(tools.filter((t) => t.name === "echo"))}`);
});

await Effect.runPromise(
  Effect.provide(program, NodeMcpClient.layer({ servers, clientInfo: { name: "classes", version: "1" } })),
);
