// One host process listing tools through the facade with its response cache in Redis:
//   node cacheProcess.mjs <mcp url> <redis url> <token>
// Prints one JSON line: { ok, tools: [names] }; exits 0 on success, 1 otherwise.
import { connect } from "@mcp-effect/node";
import * as RedisCacheStore from "@mcp-effect/redis/RedisCacheStore";
import { Redis } from "ioredis";

const [url, redisUrl, token] = process.argv.slice(2);
const redis = new Redis(redisUrl);

try {
  const client = await connect(url, {
    headers: { authorization: `Bearer ${token}` },
    cacheStore: RedisCacheStore.make(redis),
    protocol: "legacy",
    eraCache: false,
  });
  const tools = await client.listTools();
  await client.close();
  process.stdout.write(`${JSON.stringify({ ok: true, tools: tools.map((tool) => tool.name) })}\n`);
} catch (e) {
  process.stdout.write(`${JSON.stringify({ ok: false, tag: e?._tag ?? e?.name, message: String(e?.message) })}\n`);
  process.exitCode = 1;
} finally {
  await redis.quit();
}
