// A real forwarding proxy (the `proxy` package: plain HTTP forwarded, HTTPS through CONNECT) on
// a free loopback port. Prints `listening <port>`, then one line per request it receives:
// `CONNECT host:port` or `<METHOD> <absolute URL>`. With `--auth user:password`, requests without
// those credentials get 407.
import * as Http from "node:http";
import { createProxy } from "proxy";

const auth = process.argv[2] === "--auth" ? process.argv[3] : undefined;
const server = createProxy(Http.createServer());
if (auth !== undefined) {
  const expected = `Basic ${Buffer.from(auth).toString("base64")}`;
  server.authenticate = (request) => request.headers["proxy-authorization"] === expected;
}
server.on("request", (request) => console.log(`${request.method} ${request.url}`));
server.on("connect", (request) => console.log(`CONNECT ${request.url}`));
server.listen(0, "127.0.0.1", () => console.log(`listening ${server.address().port}`));
process.on("SIGTERM", () => process.exit(0));
