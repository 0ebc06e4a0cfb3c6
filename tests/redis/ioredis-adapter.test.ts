import { createIoredisScriptingClient } from "@/lib/http/rate-limit/ioredis-adapter";
import { Redis as Ioredis } from "ioredis";
import { createHash, randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { LOCAL_REDIS_URL, uniquePrefix } from "../support/redis";

const redis = new Ioredis(LOCAL_REDIS_URL);
const client = createIoredisScriptingClient(redis);

afterAll(() => redis.quit());

function sha1Of(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}

/** Unique text so no other test has already cached the script in Redis. */
function uniqueScript(body: string, shebang = "#!lua flags=allow-key-locking"): string {
  return `${shebang}\n-- ${randomUUID()}\n${body}`;
}

describe("ioredis adapter for @upstash/ratelimit", () => {
  it("surfaces an unknown script as a NOSCRIPT error, as the library's eval fallback expects", async () => {
    const error = await client.evalsha(sha1Of(uniqueScript("return 1")), [], []).catch((caught: unknown) => caught);

    expect(`${error}`).toContain("NOSCRIPT");
  });

  it("runs scripts whose shebang carries Upstash-only flags, then finds them by their original SHA1", async () => {
    const key = `${uniquePrefix()}:counter`;
    const script = uniqueScript('return redis.call("INCRBY", KEYS[1], ARGV[1])');

    expect(await client.eval(script, [key], [2])).toBe(2);
    expect(await client.evalsha(sha1Of(script), [key], [3])).toBe(5);
    await redis.del(key);
  });

  it("keeps the shebang flags Redis knows", async () => {
    const script = uniqueScript('return redis.call("SET", KEYS[1], "x")', "#!lua flags=allow-key-locking,no-writes");

    await expect(client.eval(script, [`${uniquePrefix()}:k`], [])).rejects.toThrow(/Write commands are not allowed/);
  });

  it("serializes arguments and deserializes replies like @upstash/redis", async () => {
    const script = uniqueScript("return {ARGV[1], ARGV[2], ARGV[3], ARGV[4], -1, false}");

    const reply = await client.eval(script, [], ["text", 42, { a: 1 }, null]);

    expect(reply).toEqual(["text", 42, { a: 1 }, null, -1, null]);
  });
});
