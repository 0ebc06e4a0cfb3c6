import { clock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { APP_ORIGIN, call, dispatch, newUser, type TestUser } from "../support/api";
import { importEntries, type ImportEntry } from "../support/import-entries";
import { connectMcp, textOf } from "../support/mcp";
import { type Links, type PeerApis, type PeerData, startPeerApis } from "../support/peer-apis-stand-in";
import { visit } from "../support/visits";

/**
 * An import by API token: the job pages through a local server speaking each peer's documented
 * list endpoint (tests/support/peer-apis-stand-in.ts), with the links shaped as the peer writes them
 * (tests/fixtures/imports/peers/) and enough of them for several pages.
 */

type Source = "dub" | "rebrandly" | "shortio";
type Report = Record<string, number | string> & { id: string; total: number; status: string; errors: { error: string }[] };
type Entry = ImportEntry;

const KEYS = {
  dub: `dub_${randomString("abcdefghjk0123456789", 24)}`,
  rebrandly: "5ecret-rebrandly-key",
  shortio: "sk_ShortSecretKey42",
};
const REBRANDLY_WORKSPACE = "4a1bc8e2f3d94a5e8b7c6d5e4f3a2b1c";

let apis: PeerApis;
let data: PeerData;
let hostname: string;

function fixture(name: string): unknown {
  return JSON.parse(readFileSync(`tests/fixtures/imports/peers/${name}`, "utf8").replaceAll("go.DOMAIN", hostname));
}

/** The fixture's links, then more of the same shape on the verified domain, so the listing takes several pages. */
function peerData(): PeerData {
  const dub = fixture("dub-api-links.json") as Links;
  const rebrandly = fixture("rebrandly-api-links.json") as Links;
  const shortio = (fixture("shortio-api-links.json") as { links: Links }).links;
  const more = (count: number, make: (index: number) => Record<string, unknown>) =>
    Array.from({ length: count }, (_, index) => make(index));
  return {
    keys: KEYS,
    dub: [
      ...dub,
      ...more(200, (index) => ({
        ...dub[0],
        id: `link_more${index}`,
        key: `more-${index}`,
        shortLink: `https://${hostname}/more-${index}`,
        url: `https://example.com/dub-more/${index}`,
        tags: [{ id: "tag_more", name: "more", color: "red" }],
      })),
    ],
    rebrandly: {
      workspace: REBRANDLY_WORKSPACE,
      links: [
        ...rebrandly,
        ...more(50, (index) => ({
          ...rebrandly[0],
          id: `rb${String(index).padStart(30, "0")}`,
          slashtag: `rb-more-${index}`,
          shortUrl: `${hostname}/rb-more-${index}`,
          destination: `https://example.com/rebrandly-more/${index}`,
        })),
      ],
    },
    shortio: {
      domains: [
        { id: 301, hostname },
        { id: 302, hostname: "short.gy" },
      ],
      links: {
        301: [
          ...shortio.filter((link) => link.DomainId === 301),
          ...more(160, (index) => ({
            ...shortio[0],
            id: `lnk_more_${index}`,
            idString: `lnk_more_${index}`,
            path: `sio-more-${index}`,
            lcpath: `sio-more-${index}`,
            shortURL: `http://${hostname}/sio-more-${index}`,
            secureShortURL: `https://${hostname}/sio-more-${index}`,
            originalURL: `https://example.com/shortio-more/${index}`,
          })),
        ],
        302: shortio.filter((link) => link.DomainId !== 301),
      },
    },
  };
}

beforeAll(async () => {
  hostname = newHostname();
  data = peerData();
  apis = await startPeerApis(data);
});

const newHostname = () => `go-${randomString("abcdefghijkmnpqrstuvwxyz", 8)}.import-test.com`;

afterAll(async () => {
  await apis.close();
  for (const name of ["DUB_API_BASE", "REBRANDLY_API_BASE", "SHORTIO_API_BASE", "WEBHOOK_PRIVATE_NETWORKS"])
    delete process.env[name];
  resetConfig();
});

beforeEach(() => {
  // The stand-in runs on 127.0.0.1, reachable only as an operator's own network is (the outbound rules of webhooks).
  process.env.WEBHOOK_PRIVATE_NETWORKS = "127.0.0.0/8";
  process.env.DUB_API_BASE = `${apis.url}/dub`;
  process.env.REBRANDLY_API_BASE = `${apis.url}/rebrandly`;
  process.env.SHORTIO_API_BASE = `${apis.url}/shortio`;
  resetConfig();
});

/** A new workspace whose verified domain (a new one each time: a hostname is verified once) the peers' links are printed on. */
async function workspaceWithDomain(): Promise<TestUser> {
  hostname = newHostname();
  Object.assign(data, peerData());
  const user = await newUser();
  await db().domain.create({
    data: { id: newId("dom"), workspaceId: user.workspaceId, hostname, verifiedAt: new Date(clock().now()) },
  });
  return user;
}

async function start(user: TestUser, body: Record<string, unknown>, query = "") {
  return call("POST", `/api/imports${query}`, {
    token: user.token,
    rawBody: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
}

async function finished(user: TestUser, id: string): Promise<Report> {
  for (let attempt = 0; attempt < 1200; attempt++) {
    const response = await call("GET", `/api/imports/${id}`, { token: user.token });
    if (["done", "failed", "cancelled"].includes(response.body.status)) return response.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`import ${id} did not finish`);
}

async function imported(user: TestUser, body: Record<string, unknown>, query = ""): Promise<Report> {
  const started = await start(user, body, query);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  expect(started.text).not.toContain(String(body.token));
  return finished(user, started.body.id);
}

function entriesOf(user: TestUser, id: string): Promise<Entry[]> {
  return importEntries(user, id, 1000);
}

const counts = (report: Report) => ({ created: report.created, kept: report.kept, merged: report.merged, failed: report.failed });

/** Every entry once, in order; the counts add up; every entry not failed names a link of the workspace (a domain's root none). */
async function expectAccounted(user: TestUser, report: Report): Promise<Entry[]> {
  expect(report).toMatchObject({ processed: report.total });
  const entries = await entriesOf(user, report.id);
  expect(entries.map((entry) => entry.entry)).toEqual([...Array(report.total).keys()]);
  for (const outcome of ["created", "kept", "merged", "failed"])
    expect(entries.filter((entry) => entry.outcome === outcome).length, outcome).toBe(report[outcome]);
  for (const entry of entries.filter((entry) => entry.outcome === "failed")) expect(entry.error!.length).toBeGreaterThan(10);
  if (!report.dry_run) {
    const named = entries.filter((entry) => entry.outcome !== "failed" && entry.link_id !== null).map((entry) => entry.link_id!);
    expect(await db().link.count({ where: { workspaceId: user.workspaceId, id: { in: named } } })).toBe(new Set(named).size);
    for (const entry of entries.filter((entry) => entry.outcome !== "failed" && entry.link_id === null))
      expect(entry.code, "only a domain's root names no link").toMatch(/^https:\/\/[^/]+\/?$/);
  }
  return entries;
}

/** Every printed code on the verified domain redirects from that host to its link's destination. */
async function expectResolving(entries: Entry[]): Promise<number> {
  let resolved = 0;
  for (const entry of entries.filter((entry) => entry.outcome !== "failed" && entry.link_id && entry.code)) {
    const code = entry.code!.replace(/^https?:\/\//, "");
    if (!code.startsWith(`${hostname}/`)) continue;
    const link = await db().link.findUniqueOrThrow({ where: { id: entry.link_id! } });
    expect(link.host, entry.code!).toBe(hostname);
    const answer = await visit(`/${code.slice(hostname.length + 1)}`, { host: hostname });
    expect([301, 302, 307, 308], `${entry.code} answered ${answer.status}`).toContain(answer.status);
    expect(answer.headers.Location, entry.code!).toBe(link.destination);
    resolved++;
  }
  return resolved;
}

const listed = (source: Source) =>
  source === "dub"
    ? data.dub.length
    : source === "rebrandly"
      ? data.rebrandly.links.length
      : Object.values(data.shortio.links).flat().length;

describe("an import by API token pages through the peer's API", () => {
  const PEERS: { source: Source; body: Record<string, unknown>; pages: number }[] = [
    { source: "dub", body: { source: "dub", token: KEYS.dub }, pages: 3 },
    { source: "rebrandly", body: { source: "rebrandly", token: KEYS.rebrandly, workspace: REBRANDLY_WORKSPACE }, pages: 3 },
    // The domains, then two pages of the first domain (150 + 13) and one of the second.
    { source: "shortio", body: { source: "shortio", token: KEYS.shortio }, pages: 4 },
  ];

  it.each(PEERS)(
    "$source: the check counts what the import does, every printed code resolves on its host, a re-run changes nothing",
    async ({ source, body, pages }) => {
      const user = await workspaceWithDomain();
      const before = apis.requests.length;
      const check = await imported(user, body, "?dry_run=1");
      expect(check.status, JSON.stringify(check.errors)).toBe("done");
      await expectAccounted(user, check);
      expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
      const asked = apis.requests.slice(before);
      expect(asked.length).toBe(pages);
      expect(new Set(asked.map((request) => request.peer))).toEqual(new Set([source]));

      const run = await imported(user, body);
      expect(run.status, JSON.stringify(run.errors)).toBe("done");
      expect(counts(run)).toEqual(counts(check));
      const entries = await expectAccounted(user, run);
      expect(new Set(entries.map((entry) => entry.row)).size).toBe(listed(source));
      expect(await expectResolving(entries)).toBeGreaterThan(listed(source) - 12);
      const links = await db().link.count({ where: { workspaceId: user.workspaceId } });

      // The key is never kept past the last page, nor anywhere in the import's record or view.
      const record = await db().import.findUniqueOrThrow({ where: { id: run.id } });
      expect(record).toMatchObject({ peerTokenSealed: null, peerCursor: null, source: null });
      expect(JSON.stringify(record)).not.toContain(String(body.token));
      expect(JSON.stringify(await call("GET", "/api/imports", { token: user.token }))).not.toContain(String(body.token));

      const again = await imported(user, body);
      await expectAccounted(user, again);
      expect(counts(again)).toEqual({
        created: 0,
        kept: Number(run.created) + Number(run.kept) + Number(run.merged),
        merged: 0,
        failed: run.failed,
      });
      expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(links);
    },
    90_000,
  );

  it("sends each peer's key in that peer's own header, and asks for the pages as documented", async () => {
    const user = await workspaceWithDomain();
    const before = apis.requests.length;
    for (const { body } of PEERS) await imported(user, body, "?dry_run=1");
    const asked = apis.requests.slice(before);
    const dub = asked.filter((request) => request.peer === "dub");
    expect(dub.map((request) => `${request.path}?${request.query}`)).toEqual([
      "/links?page=1&pageSize=100",
      "/links?page=2&pageSize=100",
      "/links?page=3&pageSize=100",
    ]);
    expect(dub.every((request) => request.headers.authorization === `Bearer ${KEYS.dub}`)).toBe(true);
    const rebrandly = asked.filter((request) => request.peer === "rebrandly");
    expect(rebrandly.map((request) => request.query.get("last"))).toEqual([
      null,
      data.rebrandly.links[24]!.id,
      data.rebrandly.links[49]!.id,
    ]);
    expect(rebrandly.every((request) => request.query.get("limit") === "25")).toBe(true);
    expect(rebrandly.every((request) => request.headers.apikey === KEYS.rebrandly)).toBe(true);
    expect(rebrandly.every((request) => request.headers.workspace === REBRANDLY_WORKSPACE)).toBe(true);
    const shortio = asked.filter((request) => request.peer === "shortio");
    expect(shortio.map((request) => [request.path, request.query.get("domain_id"), request.query.has("pageToken")])).toEqual([
      ["/api/domains", null, false],
      ["/api/links", "301", false],
      ["/api/links", "301", true],
      ["/api/links", "302", false],
    ]);
    expect(shortio.every((request) => request.headers.authorization === KEYS.shortio)).toBe(true);
  });

  it("reads one Short.io domain when the customer names it", async () => {
    const user = await workspaceWithDomain();
    const run = await imported(user, { source: "shortio", token: KEYS.shortio, domain: hostname.toUpperCase() }, "?dry_run=1");
    expect(run.total).toBe(data.shortio.links[301]!.length);
    const missing = await imported(user, { source: "shortio", token: KEYS.shortio, domain: "nope.example.com" }, "?dry_run=1");
    expect(missing).toMatchObject({ status: "failed", total: 0 });
    expect(missing.errors.at(-1)!.error).toBe(
      "The Short.io account has no domain nope.example.com: check the domain's name, or leave it empty to bring every domain's links.",
    );
  });
});

describe("a peer that refuses, slows down or fails", () => {
  it.each([
    ["dub", "Dub refused the API key"],
    ["rebrandly", "Rebrandly refused the API key"],
    ["shortio", "Short.io refused the API key"],
  ] as const)("%s: a wrong key ends the job with a plain sentence and creates nothing", async (source, sentence) => {
    const user = await workspaceWithDomain();
    const run = await imported(user, { source, token: "not-the-key" });
    expect(run).toMatchObject({ status: "failed", total: 0, processed: 0, created: 0 });
    expect(run.errors.at(-1)!.error).toMatch(new RegExp(`^${sentence}: `));
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
    expect(await db().import.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({ peerTokenSealed: null });
  });

  it("waits out a 429 for its Retry-After, then carries on", async () => {
    const user = await workspaceWithDomain();
    apis.failNext("dub", { status: 429, headers: { "retry-after": "1" }, times: 1 });
    const before = apis.requests.length;
    const run = await imported(user, { source: "dub", token: KEYS.dub }, "?dry_run=1");
    expect(run.status).toBe("done");
    expect(run.total).toBeGreaterThanOrEqual(data.dub.length);
    const [refused, retried] = apis.requests.slice(before);
    expect(retried!.query.get("page")).toBe("1");
    expect(retried!.at - refused!.at).toBeGreaterThanOrEqual(950);
  });

  it("asks again after a 5xx, and after a few ends the job keeping every page already imported; a re-run brings the rest", async () => {
    const user = await workspaceWithDomain();
    apis.failNext("rebrandly", { status: 502, times: 2 });
    const clear = apis.failWhere("rebrandly", (query) => query.get("last") === data.rebrandly.links[24]!.id, 503);
    const broken = await imported(user, { source: "rebrandly", token: KEYS.rebrandly });
    clear();
    expect(broken).toMatchObject({ status: "failed", total: 25, processed: 25 });
    expect(broken.errors.at(-1)!.error).toBe(
      "Rebrandly's API kept failing (HTTP 503); the links read so far are imported: start the import again later to bring the rest.",
    );
    await expectAccounted(user, broken);
    const partial = await db().link.count({ where: { workspaceId: user.workspaceId } });
    expect(partial).toBeGreaterThan(0);

    const rest = await imported(user, { source: "rebrandly", token: KEYS.rebrandly });
    expect(rest.status).toBe("done");
    await expectAccounted(user, rest);
    expect(Number(rest.kept)).toBe(Number(broken.created) + Number(broken.kept) + Number(broken.merged));
    expect(Number(rest.created)).toBeGreaterThan(0);
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(partial + Number(rest.created));
  });

  it("keeps to the outbound rules: an API address inside the network is refused unless the operator opened it", async () => {
    delete process.env.WEBHOOK_PRIVATE_NETWORKS;
    resetConfig();
    const user = await workspaceWithDomain();
    const before = apis.requests.length;
    const run = await imported(user, { source: "dub", token: KEYS.dub }, "?dry_run=1");
    expect(run.status).toBe("failed");
    expect(run.errors.at(-1)!.error).toBe(
      "Dub's API address points inside this service's network, which an import may not reach.",
    );
    expect(apis.requests.length).toBe(before);
  });
});

describe("the request", () => {
  it.each([
    [{ source: "bitly", token: "x" }, /"source" is invalid: must be one of dub, rebrandly, shortio/],
    [{ source: "dub", token: "" }, /"token" is invalid: must not be empty/],
    [{ source: "dub", token: "two words" }, /"token" is invalid: must be the API key exactly as the service shows it/],
    [{ source: "dub", token: "k", workspace: "w1" }, /^workspace is Rebrandly's/],
    [{ source: "rebrandly", token: "k", domain: "go.example.com" }, /^domain is Short\.io's/],
    [{ source: "dub", token: "k", extra: 1 }, /has a field this operation does not accept: extra/],
  ])("refuses %j with a sentence", async (body, message) => {
    const user = await workspaceWithDomain();
    const response = await start(user, body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(message);
    expect(response.text).not.toContain('"token":"k"');
  });

  it("takes the same request through MCP start_import, as its file", async () => {
    const user = await workspaceWithDomain();
    const client = await connectMcp(APP_ORIGIN, {
      token: user.token,
      fetch: (input, init) => dispatch(new Request(input, init)),
    });
    try {
      const result = (await client.callTool({
        name: "start_import",
        arguments: { file: JSON.stringify({ source: "rebrandly", token: KEYS.rebrandly }), file_type: "json", dry_run: "1" },
      })) as CallToolResult;
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: "queued", format: "rebrandly", dry_run: true, total: 0 });
      expect(JSON.stringify(result)).not.toContain(KEYS.rebrandly);
      const report = await finished(user, (result.structuredContent as { id: string }).id);
      expect(report).toMatchObject({ status: "done", total: data.rebrandly.links.length });
    } finally {
      await client.close();
    }
  });

  it("refuses a format that is not the source", async () => {
    const user = await workspaceWithDomain();
    const response = await start(user, { source: "dub", token: KEYS.dub }, "?format=bitly");
    expect(response).toMatchObject({
      status: 400,
      body: { error: "format=bitly does not match the source dub: leave format out." },
    });
  });

  it("cancels an import by API token between pages, and forgets the key", async () => {
    const user = await workspaceWithDomain();
    apis.failNext("dub", { status: 429, headers: { "retry-after": "2" }, times: 1 });
    const started = await start(user, { source: "dub", token: KEYS.dub }, "?dry_run=1");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cancelled = await call("POST", `/api/imports/${started.body.id}/cancel`, { token: user.token });
    expect(cancelled.status).toBe(200);
    const report = await finished(user, started.body.id);
    expect(report.status).toBe("cancelled");
    expect(await db().import.findUniqueOrThrow({ where: { id: report.id } })).toMatchObject({
      peerTokenSealed: null,
      peerCursor: null,
    });
  });
});
