import { randomString } from "@/lib/db/random";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { startApp, type RunningApp } from "@/server/app-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newUser } from "../support/api";
import { TEST_ZONE } from "../support/dns-server";
import { startFakeDnsServer, type FakeDnsServer } from "../support/fake-dns-server";
import { rawRequest } from "../support/http";

const SHORT_HOST = "s.test.example";
const apps: RunningApp[] = [];
let dns: FakeDnsServer;

/** Two instances of the self-hosted server on one database; caches that would stay warm for an hour. */
async function startPair(redisUrl: string | undefined): Promise<[RunningApp, RunningApp]> {
  const { DATABASE_URL, DATABASE_POOL_SIZE, AUTH_SECRET } = process.env;
  const env = {
    DATABASE_URL,
    DATABASE_POOL_SIZE,
    AUTH_SECRET,
    DNS_RESOLVER: dns.resolver,
    REDIS_URL: redisUrl,
    SHORT_BASE_URL: `http://${SHORT_HOST}`,
    BASE_URL: "http://app.test.example",
    RESOLUTION_CACHE_SECONDS: "3600",
    RECHECK_INTERVAL_SECONDS: "0",
  };
  const pair = await Promise.all([startApp("front", env), startApp("front", env)]);
  apps.push(...pair);
  return pair;
}

async function createLink(app: RunningApp, token: string, destination: string): Promise<{ id: string; slug: string }> {
  const response = await fetch(`${app.url}/api/links`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", host: "app.test.example" },
    body: JSON.stringify({ destination }),
  });
  expect(response.status).toBe(201);
  return response.json();
}

async function repoint(app: RunningApp, token: string, id: string, destination: string): Promise<void> {
  const response = await fetch(`${app.url}/api/links/${id}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ destination }),
  });
  expect(response.status).toBe(200);
}

const locationOn = async (app: RunningApp, slug: string) =>
  (await rawRequest(app.url, `/${slug}`, { host: SHORT_HOST })).headers.location;

async function repointSeenByTheOtherInstance(pair: [RunningApp, RunningApp]): Promise<string | undefined> {
  const [first, second] = pair;
  const { token } = await newUser("instances");
  const link = await createLink(first, token, "https://example.com/before");
  expect(await locationOn(first, link.slug)).toBe("https://example.com/before");
  expect(await locationOn(second, link.slug)).toBe("https://example.com/before");
  await repoint(first, token, link.id, "https://example.com/after");
  expect(await locationOn(first, link.slug)).toBe("https://example.com/after");
  // Pub/sub delivery is asynchronous; a second is ample on a loaded CI machine.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return locationOn(second, link.slug);
}

/**
 * A domain pending on the first instance is asked for on the second (which keeps "not ours"), then
 * verified on the first, with a link: where the second sends that link's visitor.
 */
async function verifiedDomainSeenByTheOtherInstance(pair: [RunningApp, RunningApp]): Promise<string | undefined> {
  const [first, second] = pair;
  const { token } = await newUser("instances-domain");
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${first.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return response.json();
  };
  const hostname = `go.instances-${randomString("abcdefghijkmnpqrstuvwxyz23456789", 10)}.com`;
  const domain = await send("POST", "/api/domains", { hostname });
  expect(domain).toMatchObject({ verified: false });
  const slug = `menu-${randomString(SLUG_ALPHABET, 6)}`;
  expect((await rawRequest(second.url, `/${slug}`, { host: hostname })).status).toBe(404);

  const [ownership, routing] = domain.dns as { name: string; value: string }[];
  dns.set(ownership!.name, { txt: [ownership!.value] });
  dns.set(routing!.name, { cname: routing!.value });
  expect(await send("POST", `/api/domains/${domain.id}/verify`)).toMatchObject({ verified: true });
  expect(
    await send("POST", "/api/links", { destination: "https://example.com/on-the-domain", slug, domain_id: domain.id }),
  ).toMatchObject({ slug });
  expect((await rawRequest(first.url, `/${slug}`, { host: hostname })).headers.location).toBe(
    "https://example.com/on-the-domain",
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return (await rawRequest(second.url, `/${slug}`, { host: hostname })).headers.location;
}

beforeAll(async () => {
  // This file's own DNS server, so a test can publish a custom domain's records; every other name answers a public address.
  dns = await startFakeDnsServer({}, { a: [TEST_ZONE.publicAddress] });
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await dns?.close();
});

describe("a change on one instance, seen by another", () => {
  let withRedis: [RunningApp, RunningApp];
  let withoutRedis: [RunningApp, RunningApp];

  beforeAll(async () => {
    [withRedis, withoutRedis] = await Promise.all([startPair("redis://127.0.0.1:6379"), startPair(undefined)]);
  }, 120_000);

  it("is visible on the next visit to every instance when they share Redis", async () => {
    expect(await repointSeenByTheOtherInstance(withRedis)).toBe("https://example.com/after");
  });

  it("would otherwise be hidden by the other instance's cache (the control case)", async () => {
    expect(await repointSeenByTheOtherInstance(withoutRedis)).toBe("https://example.com/before");
  });

  it("serves a custom domain verified on one instance at once on every instance when they share Redis", async () => {
    expect(await verifiedDomainSeenByTheOtherInstance(withRedis)).toBe("https://example.com/on-the-domain");
  });

  it("would otherwise leave the other instance answering that the host is not ours (the control case)", async () => {
    expect(await verifiedDomainSeenByTheOtherInstance(withoutRedis)).toBeUndefined();
  });
});
