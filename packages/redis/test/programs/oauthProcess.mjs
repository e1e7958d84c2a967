// One host process using OAuth through the facade with its tokens in Redis, then exiting:
//   node oauthProcess.mjs <mcp url> <redis url> <interactive|silent|hold-lock> [--barrier]
// interactive: a headless browser approves (prints "browser" when it is asked);
// silent: no browser flow at all (an authorization needed fails with AuthorizationRequiredError);
// hold-lock: takes the refresh lock of <mcp url> (expiring after 2 s), prints "locked" and waits to
// be killed — a holder that crashes.
// --barrier: prints "ready" and waits for a line on stdin before its first request, so that
// several processes race. Prints one JSON line with the outcome; exits 0 on success, 1 otherwise.
import { connect } from "@mcp-effect/node";
import * as RedisOAuth from "@mcp-effect/redis/RedisOAuth";
import * as Effect from "effect/Effect";
import { Redis } from "ioredis";
import * as Readline from "node:readline";

const [url, redisUrl, mode, ...flags] = process.argv.slice(2);
const redis = new Redis(redisUrl);
const storage = RedisOAuth.makeStorage(redis, { lockTtl: mode === "hold-lock" ? 2_000 : 60_000 });

if (mode === "hold-lock") {
  await Effect.runPromise(
    storage.withLock(
      `refresh:${url}`,
      Effect.zipRight(Effect.sync(() => process.stdout.write("locked\n")), Effect.never),
    ),
  );
}

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

try {
  const client = await connect(url, {
    oauth: { storage, interactive: mode === "interactive", openBrowser: approve, printUrl: () => {}, refreshSkew: 1 },
    eraCache: false,
  });
  const tools = await client.listTools();
  await client.close();
  process.stdout.write(`${JSON.stringify({ ok: true, tools: tools.length })}\n`);
} catch (e) {
  process.stdout.write(`${JSON.stringify({ ok: false, tag: e?._tag ?? e?.name, message: String(e?.message) })}\n`);
  process.exitCode = 1;
} finally {
  await redis.quit();
}
