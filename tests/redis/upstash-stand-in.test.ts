import { Redis as UpstashRedis } from "@upstash/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type UpstashStandIn, startUpstashStandIn } from "../support/upstash-stand-in";

let standIn: UpstashStandIn;
const client = () => new UpstashRedis({ url: standIn.url, token: standIn.token, retry: false });

beforeAll(async () => {
  standIn = await startUpstashStandIn();
});

afterAll(() => standIn.close());

/** The stand-in must answer @upstash/redis exactly as Upstash does, or the app's Upstash path is not what is tested. */
describe("the Upstash REST stand-in, spoken to by @upstash/redis", () => {
  it("keeps values byte for byte through base64 answers, OK and integers as they are", async () => {
    const redis = client();
    const key = `stand-in:${Math.random()}`;
    expect(await redis.set(key, "café ✓ 007")).toBe("OK");
    expect(await redis.get(key)).toBe("café ✓ 007");
    expect(await redis.incr(`${key}:n`)).toBe(1);
    expect(await redis.get(`${key}:missing`)).toBeNull();
    expect(await standIn.redis.get(key)).toBe("café ✓ 007");
  });

  it("answers a pipeline command by command and a transaction as one", async () => {
    const redis = client();
    const key = `stand-in:${Math.random()}`;
    const [set, wrongType, length] = await redis.pipeline().set(key, "a").incr(key).strlen(key).exec({ keepErrors: true });
    expect(set).toEqual({ result: "OK", error: undefined });
    expect(wrongType!.error).toMatch(/^ERR value is not an integer/);
    expect(length).toEqual({ result: 1, error: undefined });
    expect(await redis.multi().set(`${key}:t`, "x").append(`${key}:t`, "y").get(`${key}:t`).exec()).toEqual(["OK", 2, "xy"]);
  });

  it("reports a failed command as Upstash does (the Redis error sentence)", async () => {
    const key = `stand-in:${Math.random()}`;
    await client().set(key, "text");
    await expect(client().incr(key)).rejects.toThrow(/ERR value is not an integer or out of range/);
    const response = await fetch(standIn.url, {
      method: "POST",
      headers: { authorization: `Bearer ${standIn.token}` },
      body: JSON.stringify(["INCR", key]),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "ERR value is not an integer or out of range" });
  });

  it("runs scripts carrying Upstash's allow-key-locking flag, by EVAL and by their SHA1", async () => {
    const script = "#!lua flags=allow-key-locking\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])";
    const redis = client();
    const key = `stand-in:${Math.random()}`;
    const sha = await redis.scriptLoad(script);
    expect(await redis.evalsha(sha, [key], [2])).toBe(2);
    expect(await redis.eval(script, [key], [3])).toBe(5);
    await expect(redis.evalsha("0".repeat(40), [key], [1])).rejects.toThrow(/NOSCRIPT/);
  });

  it("refuses a wrong token with 401 and Upstash's sentence", async () => {
    const response = await fetch(standIn.url, { method: "POST", headers: { authorization: "Bearer nope" }, body: '["PING"]' });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "WRONGPASS invalid or missing auth token" });
    await expect(new UpstashRedis({ url: standIn.url, token: "nope", retry: false }).ping()).rejects.toThrow(/WRONGPASS/);
  });
});
