import type { Redis as UpstashRedis } from "@upstash/redis";
import type { Redis as Ioredis } from "ioredis";
import { createHash } from "node:crypto";

/** The part of the @upstash/redis client that @upstash/ratelimit's single-region limiters call. */
export type UpstashScriptingClient = Pick<UpstashRedis, "evalsha" | "eval">;

// Redis OSS rejects any shebang flag it does not know, such as the Upstash-only
// "allow-key-locking" that @upstash/ratelimit puts on its scripts.
const SHEBANG_FLAGS_KNOWN_TO_REDIS = new Set(["no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"]);

/**
 * Gives @upstash/ratelimit the evalsha/eval it calls, with @upstash/redis's
 * argument serialization, reply deserialization and error surfacing
 * (a missing script rejects with Redis's "NOSCRIPT ..." error so the library falls back to eval).
 */
export function createIoredisScriptingClient(redis: Ioredis): UpstashScriptingClient {
  // The library addresses scripts by the SHA1 of their original text; a script whose
  // shebang was rewritten is cached by Redis under the SHA1 of the rewritten text.
  const redisShaByLibrarySha = new Map<string, string>();

  async function evalsha<TArgs extends unknown[], TData = unknown>(sha1: string, keys: string[], args: TArgs): Promise<TData> {
    const redisSha = redisShaByLibrarySha.get(sha1) ?? sha1;
    const reply: unknown = await redis.evalsha(redisSha, keys.length, ...keys, ...args.map(serializeArgument));
    return deserializeReply(reply) as TData;
  }

  async function evalScript<TArgs extends unknown[], TData = unknown>(
    script: string,
    keys: string[],
    args: TArgs,
  ): Promise<TData> {
    const compatibleScript = withRedisCompatibleShebang(script);
    redisShaByLibrarySha.set(sha1Of(script), sha1Of(compatibleScript));
    const reply: unknown = await redis.eval(compatibleScript, keys.length, ...keys, ...args.map(serializeArgument));
    return deserializeReply(reply) as TData;
  }

  return { evalsha, eval: evalScript };
}

function withRedisCompatibleShebang(script: string): string {
  const shebang = /^#!lua[^\n]*/.exec(script)?.[0];
  if (shebang === undefined) return script;
  const directives = shebang.slice("#!lua".length).trim().split(/\s+/).filter(Boolean).map(keepOnlyKnownFlags);
  return ["#!lua", ...directives].join(" ") + script.slice(shebang.length);
}

function keepOnlyKnownFlags(directive: string): string {
  if (!directive.startsWith("flags=")) return directive;
  const knownFlags = directive
    .slice("flags=".length)
    .split(",")
    .filter((flag) => SHEBANG_FLAGS_KNOWN_TO_REDIS.has(flag));
  return `flags=${knownFlags.join(",")}`;
}

function sha1Of(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}

/** Same rule as @upstash/redis: strings, numbers and booleans as text, anything else as JSON. */
function serializeArgument(argument: unknown): string {
  if (typeof argument === "string" || typeof argument === "number" || typeof argument === "boolean") return String(argument);
  return JSON.stringify(argument) ?? "null";
}

/** Same rule as @upstash/redis's automatic deserialization: JSON-looking strings are parsed, recursively in arrays. */
function deserializeReply(reply: unknown): unknown {
  if (Array.isArray(reply)) return reply.map(deserializeReply);
  if (typeof reply !== "string") return reply;
  try {
    const parsed: unknown = JSON.parse(reply);
    // Keeps numeric strings that would lose precision or formatting (e.g. "007", big integers) as text.
    return typeof parsed === "number" && String(parsed) !== reply ? reply : parsed;
  } catch {
    return reply;
  }
}
