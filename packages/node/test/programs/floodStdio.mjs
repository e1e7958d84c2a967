// A stdio server that floods its client with requests: after `notifications/initialized`, a
// burst of `roots/list` (served by the client) and `elicitation/create` (not served), written as
// fast as the pipe takes them; once every one is answered, `notifications/flood_done` with the
// count of distinct ids answered.
//   node floodStdio.mjs <burst>
import * as Readline from "node:readline";

const burst = Number(process.argv[2]);
const answered = new Set();
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

const flood = () => {
  let id = 0;
  const more = () => {
    while (id < burst) {
      const method = id % 2 === 0 ? "roots/list" : "elicitation/create";
      if (!send({ jsonrpc: "2.0", id: id++, method, params: {} })) return void process.stdout.once("drain", more);
    }
  };
  more();
};

Readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (typeof message.method !== "string") {
    answered.add(message.id);
    if (answered.size === burst) {
      send({ jsonrpc: "2.0", method: "notifications/flood_done", params: { answered: answered.size } });
    }
    return;
  }
  if (message.method === "initialize") {
    const result = {
      protocolVersion: message.params.protocolVersion,
      capabilities: {},
      serverInfo: { name: "flood", version: "1" },
    };
    send({ jsonrpc: "2.0", id: message.id, result });
  } else if (message.method === "notifications/initialized") {
    flood();
  } else if (message.id !== undefined) {
    send({ jsonrpc: "2.0", id: message.id, result: {} });
  }
});
