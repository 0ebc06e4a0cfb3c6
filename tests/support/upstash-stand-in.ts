import { Redis as Ioredis } from "ioredis";
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { LOCAL_REDIS_URL } from "./redis";

export type UpstashStandIn = {
  /** For UPSTASH_REDIS_REST_URL. */
  url: string;
  /** For UPSTASH_REDIS_REST_TOKEN: the bearer token this database accepts (see rotateToken). */
  token: string;
  /** The local Redis database (1–15) behind this stand-in, for a test to look into. */
  redis: Ioredis;
  /** The name of every command received, in order (a pipeline's and a transaction's included). */
  commands: string[];
  /** Accepts only `next` (by default a new random token) from now on, as rotating it in Upstash's console does; returns it. */
  rotateToken(next?: string): string;
  close(): Promise<void>;
};

type Argument = string | number | boolean;
type Reply = null | number | Buffer | Reply[];
type Result = { result: unknown } | { error: string };

/** Upstash's answer to a missing or wrong token (HTTP 401). */
const WRONG_TOKEN = "WRONGPASS invalid or missing auth token";

// Upstash accepts the shebang flags of Redis 7 and its own "allow-key-locking", which @upstash/ratelimit
// puts on every script; Redis OSS refuses any flag it does not know, so they are dropped on the way.
const FLAGS_KNOWN_TO_REDIS = new Set(["no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"]);

/**
 * Upstash Redis's REST API (https://upstash.com/docs/redis/features/restapi) in front of the local
 * Redis, as @upstash/redis speaks it: a command is a JSON array POSTed to `/`, several to `/pipeline`
 * (each answered on its own) or `/multi-exec` (one transaction), with `Authorization: Bearer`;
 * answers are `{result}` or `{error}` (HTTP 400 for a failed command, 401 for a wrong token), and
 * with `Upstash-Encoding: base64` every string in a result is base64 except a bare top-level "OK".
 * Each stand-in uses its own Redis database number, so tests running side by side never share keys.
 */
export async function startUpstashStandIn(): Promise<UpstashStandIn> {
  const database = 1 + Math.floor(Math.random() * 15);
  const redis = new Ioredis(`${LOCAL_REDIS_URL}/${database}`);
  const commands: string[] = [];
  const redisShaByUpstashSha = new Map<string, string>();
  let token = randomBytes(24).toString("base64url");
  let syncToken = 0;

  async function run(command: Argument[]): Promise<Reply> {
    const [name, ...args] = command.map(String);
    commands.push(name!.toLowerCase());
    return redis.callBuffer(...redisCommand(name!.toLowerCase(), args)) as Promise<Reply>;
  }

  /** The command as Redis takes it: scripts stripped of Upstash-only flags, and known by the SHA1 Upstash would give them. */
  function redisCommand(name: string, args: string[]): [string, ...string[]] {
    if ((name === "eval" || name === "eval_ro") && args[0] !== undefined) {
      return [name, compatible(args[0]), ...args.slice(1)];
    }
    if ((name === "evalsha" || name === "evalsha_ro") && args[0] !== undefined) {
      return [name, redisShaByUpstashSha.get(args[0].toLowerCase()) ?? args[0], ...args.slice(1)];
    }
    if (name === "script" && args[0]?.toLowerCase() === "load" && args[1] !== undefined) {
      return ["script", "load", compatible(args[1])];
    }
    return [name, ...args];
  }

  function compatible(script: string): string {
    const rewritten = withRedisFlagsOnly(script);
    redisShaByUpstashSha.set(sha1(script), sha1(rewritten));
    return rewritten;
  }

  async function answer(path: string, body: unknown, base64: boolean): Promise<{ status: number; body: unknown }> {
    if (path === "/") {
      if (!isCommand(body)) return { status: 400, body: { error: "ERR failed to parse command" } };
      const result = await settle(run(body), base64, true);
      return { status: "error" in result ? 400 : 200, body: result };
    }
    if (!Array.isArray(body) || body.length === 0 || !body.every(isCommand)) {
      return { status: 400, body: { error: "ERR failed to parse pipeline request" } };
    }
    if (path === "/pipeline") {
      return { status: 200, body: await Promise.all(body.map((command) => settle(run(command), base64, true))) };
    }
    if (path === "/multi-exec") return transaction(body, base64);
    return { status: 404, body: { error: "ERR unknown endpoint" } };
  }

  async function transaction(body: Argument[][], base64: boolean): Promise<{ status: number; body: unknown }> {
    const multi = redis.multi();
    for (const command of body) {
      const [name, ...args] = command.map(String);
      commands.push(name!.toLowerCase());
      multi.callBuffer(...redisCommand(name!.toLowerCase(), args));
    }
    try {
      const replies = (await multi.exec()) ?? [];
      return {
        status: 200,
        body: replies.map(([error, reply]) =>
          error ? { error: error.message } : { result: encode(reply as Reply, base64, true) },
        ),
      };
    } catch (error) {
      return { status: 400, body: { error: (error as Error).message } };
    }
  }

  const server = createServer((request, response) => {
    readBody(request)
      .then(async (text) => {
        if (!authorized(request, token)) return send(response, 401, { error: WRONG_TOKEN });
        if (request.method !== "POST") return send(response, 405, { error: "ERR only POST is served here" });
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          return send(response, 400, { error: "ERR failed to parse command" });
        }
        const base64 = request.headers["upstash-encoding"] === "base64";
        const { status, body: answered } = await answer(new URL(request.url ?? "/", "http://stand-in").pathname, body, base64);
        send(response, status, answered, String(++syncToken));
      })
      .catch((error: Error) => send(response, 500, { error: `ERR ${error.message}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    get token() {
      return token;
    },
    redis,
    commands,
    rotateToken: (next = randomBytes(24).toString("base64url")) => (token = next),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      redis.disconnect();
    },
  };
}

function isCommand(value: unknown): value is Argument[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((part) => typeof part === "string" || typeof part === "number" || typeof part === "boolean")
  );
}

async function settle(reply: Promise<Reply>, base64: boolean, topLevel: boolean): Promise<Result> {
  try {
    return { result: encode(await reply, base64, topLevel) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function encode(reply: Reply, base64: boolean, topLevel: boolean): unknown {
  if (reply === null || typeof reply === "number") return reply;
  if (Array.isArray(reply)) return reply.map((element) => encode(element, base64, false));
  if (!base64 || (topLevel && reply.toString("latin1") === "OK")) return reply.toString("utf8");
  return reply.toString("base64");
}

function authorized(request: IncomingMessage, token: string): boolean {
  const query = new URL(request.url ?? "/", "http://stand-in").searchParams.get("_token");
  return request.headers.authorization === `Bearer ${token}` || query === token;
}

function send(response: ServerResponse, status: number, body: unknown, syncToken?: string): void {
  response.writeHead(status, {
    "content-type": "application/json",
    ...(syncToken !== undefined && { "upstash-sync-token": syncToken }),
  });
  response.end(JSON.stringify(body));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (text += chunk));
    request.on("end", () => resolve(text));
    request.on("error", reject);
  });
}

function withRedisFlagsOnly(script: string): string {
  const shebang = /^#!lua[^\n]*/.exec(script)?.[0];
  if (shebang === undefined) return script;
  const directives = shebang
    .slice("#!lua".length)
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((directive) =>
      directive.startsWith("flags=")
        ? `flags=${directive
            .slice("flags=".length)
            .split(",")
            .filter((flag) => FLAGS_KNOWN_TO_REDIS.has(flag))
            .join(",")}`
        : directive,
    );
  return ["#!lua", ...directives].join(" ") + script.slice(shebang.length);
}

function sha1(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}
