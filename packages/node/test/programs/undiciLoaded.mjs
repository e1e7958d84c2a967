// Whether undici is loaded at each step of a client's life, one line per step:
//   node undiciLoaded.mjs <fake server bin> <url of a Streamable HTTP server>
// (import, then a stdio client's call, then an HTTP client's listTools).
import { connect } from "@mcp-effect/node";
import { createRequire } from "node:module";
import * as Path from "node:path";

const [fakeServer, url] = process.argv.slice(2);
const cache = createRequire(import.meta.url).cache;
const loaded = () => Object.keys(cache).some((file) => file.includes(`${Path.sep}undici${Path.sep}`));

console.log(`import ${loaded()}`);
const stdio = await connect([process.execPath, fakeServer]);
await stdio.callTool("echo", { message: "hi" });
console.log(`stdio ${loaded()}`);
await stdio.close();
const http = await connect(url);
await http.listTools();
console.log(`http ${loaded()}`);
await http.close();
