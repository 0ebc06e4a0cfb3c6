import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { hashedClientAddress } from "@/lib/http/client-address";
import { resetWriteLimiter } from "@/lib/http/write-limit";
import { Redis as Ioredis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser, type TestUser } from "../support/api";
import { connectApp, pkce, REDIRECT } from "../support/oauth";
import { LOCAL_REDIS_URL, waitUntilClearOfWindowBoundary } from "../support/redis";

const WRITES_PER_MINUTE = 3;
/** Room for one test's writes to stay inside one fixed Redis window even on a loaded machine. */
const WINDOW_BOUNDARY_MARGIN_MS = 5_000;

type Caller = { token: string; headers?: Record<string, string> };

let destinationCounter = 0;

/** A create with a destination never used before, so each call is a real write (201), not a dedupe hit. */
function createLink(caller: Caller) {
  return call("POST", "/api/links", { ...caller, body: { destination: `https://example.com/rate/${++destinationCounter}` } });
}

async function createLinks(caller: Caller, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await createLink(caller)).status);
  return statuses;
}

const allowedWrites = () => Array<number>(WRITES_PER_MINUTE).fill(201);

/** Runs the file's tests with a small write budget, on Redis when `redisUrl` is given, else in memory. */
function withWriteLimit(redisUrl?: string): void {
  beforeAll(async () => {
    process.env.WRITE_RATE_LIMIT_PER_MINUTE = String(WRITES_PER_MINUTE);
    if (redisUrl) process.env.REDIS_URL = redisUrl;
    resetConfig();
    await resetWriteLimiter();
  });

  afterAll(async () => {
    process.env.WRITE_RATE_LIMIT_PER_MINUTE = "10000";
    delete process.env.REDIS_URL;
    resetConfig();
    await resetWriteLimiter();
  });
}

function sharedBudgetTests(): void {
  it(`refuses write ${WRITES_PER_MINUTE + 1} in a minute with 429, an error sentence and rate-limit headers`, async () => {
    const user = await newUser();
    expect(await createLinks(user, WRITES_PER_MINUTE)).toEqual(allowedWrites());

    const refused = await createLink(user);

    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: expect.stringMatching(/\S/) });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get("ratelimit-policy")).toBe(`"writes";q=${WRITES_PER_MINUTE};w=60`);
    expect(refused.headers.get("ratelimit")).toMatch(/^"writes";r=0;t=\d+$/);
  });

  it("does not limit reads", async () => {
    const user = await newUser();
    await createLinks(user, WRITES_PER_MINUTE + 1);

    const reads = await Promise.all(
      Array.from({ length: WRITES_PER_MINUTE * 2 }, () => call("GET", "/api/links", { token: user.token })),
    );

    expect(reads.map((read) => read.status)).toEqual(Array(WRITES_PER_MINUTE * 2).fill(200));
    expect(reads[0]!.body.links).toHaveLength(WRITES_PER_MINUTE);
  });

  it("keeps one budget per workspace, shared by its members", async () => {
    const owner = await newUser("owner");
    const member = await newUser("member");
    expect(await createLinks(member, WRITES_PER_MINUTE + 1)).toEqual([...allowedWrites(), 429]);

    const inOwnersWorkspace = await joinWorkspace(member, owner.workspaceId, "member");
    expect(await createLinks(inOwnersWorkspace, WRITES_PER_MINUTE - 1)).toEqual(allowedWrites().slice(1));
    expect(await createLinks(owner, 2)).toEqual([201, 429]);
    expect((await createLink(inOwnersWorkspace)).status).toBe(429);
  });

  it("answers 401 to a non-member naming a workspace, without spending that workspace's budget", async () => {
    const victim = await newUser("victim");
    const intruder = await newUser("intruder");
    const asVictimsWorkspace = { token: intruder.token, headers: { "x-workspace-id": victim.workspaceId } };

    const attempts = await Promise.all(Array.from({ length: WRITES_PER_MINUTE * 2 }, () => createLink(asVictimsWorkspace)));

    expect(attempts.map((attempt) => attempt.status)).toEqual(Array(WRITES_PER_MINUTE * 2).fill(401));
    expect(attempts[0]!.body).toEqual({ error: expect.any(String) });
    expect(await createLinks(victim, WRITES_PER_MINUTE + 1)).toEqual([...allowedWrites(), 429]);
  });
}

describe("write rate limit in memory", () => {
  withWriteLimit();
  sharedBudgetTests();

  it("counts anonymous OAuth authorization requests (each stores a request) against the address's budget", async () => {
    const registered = await call("POST", "/api/oauth/register", {
      headers: { "x-forwarded-for": "198.51.100.201" },
      body: { redirect_uris: [REDIRECT], client_name: "Budget app" },
    });
    expect(registered.status, registered.text).toBe(201);
    const query = new URLSearchParams({
      response_type: "code",
      client_id: registered.body.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    });
    const authorize = (address: string) =>
      call("GET", `/api/oauth/authorize?${query}`, { headers: { "x-forwarded-for": address } });
    const stored = () => db().oAuthAuthorization.count({ where: { clientId: registered.body.client_id } });
    const statuses: number[] = [];
    for (let i = 0; i <= WRITES_PER_MINUTE; i++) statuses.push((await authorize("198.51.100.202")).status);
    expect(statuses).toEqual([...Array<number>(WRITES_PER_MINUTE).fill(303), 429]);
    expect(await stored()).toBe(WRITES_PER_MINUTE);
    expect((await authorize("198.51.100.203")).status).toBe(303);
  });
});

describe("what spends a write (runOperation's order: scope, budget, input)", () => {
  let user: TestUser;
  let readOnlyApp: string;

  beforeAll(async () => {
    // Connected with the file's ample budget: registering and authorizing the app are writes of their own.
    user = await newUser("order");
    readOnlyApp = (await connectApp(user, user.workspaceId, ["links:read"])).tokens.access_token;
  });
  withWriteLimit();

  it("spends one on a body it refuses (400) and on a path id never issued (404), none on a read", async () => {
    await resetWriteLimiter();
    const refusedBody = await call("POST", "/api/links", { token: user.token, body: { destination: 42 } });
    expect(refusedBody.status).toBe(400);
    expect(refusedBody.body).toEqual({ error: expect.stringMatching(/destination/) });
    const unknownId = await call("PATCH", "/api/links/not-an-id", { token: user.token, body: { title: "x" } });
    expect(unknownId.status).toBe(404);
    for (let i = 0; i < WRITES_PER_MINUTE; i++) expect((await call("GET", "/api/links", { token: user.token })).status).toBe(200);

    expect(await createLinks(user, 2)).toEqual([201, 429]);
  });

  it("spends none on an OAuth app's write refused for its scope (403), which is checked before the budget", async () => {
    await resetWriteLimiter();
    const refused: number[] = [];
    for (let i = 0; i <= WRITES_PER_MINUTE; i++) refused.push((await createLink({ token: readOnlyApp })).status);
    expect(refused).toEqual(Array<number>(WRITES_PER_MINUTE + 1).fill(403));

    expect(await createLinks(user, WRITES_PER_MINUTE + 1)).toEqual([...allowedWrites(), 429]);
  });
});

describe("write rate limit on Redis", () => {
  const inspector = new Ioredis(LOCAL_REDIS_URL);
  withWriteLimit(LOCAL_REDIS_URL);
  beforeEach(() => waitUntilClearOfWindowBoundary(WINDOW_BOUNDARY_MARGIN_MS));
  afterAll(() => inspector.quit());

  sharedBudgetTests();

  /** Starting a fresh limiter between writes stands in for requests landing on different app instances. */
  async function createLinkOnNewInstance(user: TestUser) {
    await resetWriteLimiter();
    return createLink(user);
  }

  it("shares one budget between app instances, counted in Redis", async () => {
    const user = await newUser();
    const statuses: number[] = [];
    for (let i = 0; i <= WRITES_PER_MINUTE; i++) statuses.push((await createLinkOnNewInstance(user)).status);

    expect(statuses).toEqual([...allowedWrites(), 429]);
    expect(await inspector.keys(`permalink:rate-limit:writes:workspace:${user.workspaceId}:*`)).not.toHaveLength(0);
  });

  it("keys a caller without an account by a keyed hash of its address, never the raw address", async () => {
    const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const buyer = { "x-forwarded-for": address };
    for (let i = 0; i <= WRITES_PER_MINUTE; i++) {
      await call("POST", "/api/links", { headers: buyer, body: { destination: `https://example.com/anonymous/${i}` } });
    }
    const refused = await call("POST", "/api/links", {
      headers: buyer,
      body: { destination: "https://example.com/anonymous/again" },
    });
    expect(refused.status).toBe(429);

    const keys = await inspector.keys("permalink:rate-limit:*");
    expect(keys.filter((key) => key.includes(address))).toEqual([]);
    const hashed = hashedClientAddress(new Request("http://app.test.example/", { headers: buyer }));
    expect(hashed).toMatch(/^[\w-]{43}$/);
    expect(keys.filter((key) => key.startsWith(`permalink:rate-limit:writes:client:${hashed}:`))).not.toHaveLength(0);
    const otherAddress = await call("POST", "/api/links", {
      headers: { "x-forwarded-for": "198.51.100.254, 203.0.113.9" },
      body: { destination: "https://example.com/anonymous/other" },
    });
    expect(otherAddress.status).not.toBe(429);
  });
});
