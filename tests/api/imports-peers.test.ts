import { clock } from "@/lib/clock";
import { db } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { importEntries, type ImportEntry } from "../support/import-entries";

/**
 * Files shaped as each peer writes them (tests/fixtures/imports/peers/: field names, nesting, order,
 * quoting and dates from the peers' own export code and API documentation), imported as a customer
 * moving in does: a check first, then the import, then the same file again.
 */
type Peer = { file: string; type: "text/csv" | "application/json"; format: string };

const PEERS: Peer[] = [
  { file: "bitly-api-page.json", type: "application/json", format: "bitly" },
  { file: "dub-export.csv", type: "text/csv", format: "dub" },
  { file: "dub-api-links.json", type: "application/json", format: "dub" },
  { file: "rebrandly-api-links.json", type: "application/json", format: "rebrandly" },
  { file: "shortio-api-links.json", type: "application/json", format: "shortio" },
  { file: "shlink-export.csv", type: "text/csv", format: "shlink" },
  { file: "shlink-rest-page.json", type: "application/json", format: "shlink" },
  { file: "kutt-api-links.json", type: "application/json", format: "kutt" },
];

type Report = Record<string, number | string> & { id: string; total: number };
type Entry = ImportEntry;

function peerFile(name: string, hostname: string): string {
  return readFileSync(`tests/fixtures/imports/peers/${name}`, "utf8").replaceAll("go.DOMAIN", hostname);
}

async function verifiedDomain(user: TestUser): Promise<{ id: string; hostname: string }> {
  const hostname = `go-${randomString("abcdefghijkmnpqrstuvwxyz", 8)}.import-test.com`;
  const id = newId("dom");
  await db().domain.create({ data: { id, workspaceId: user.workspaceId, hostname, verifiedAt: new Date(clock().now()) } });
  return { id, hostname };
}

async function imported(user: TestUser, file: string, type: string, query = ""): Promise<Report> {
  const started = await call("POST", `/api/imports${query}`, {
    token: user.token,
    rawBody: file,
    headers: { "content-type": type },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  for (let attempt = 0; attempt < 2400; attempt++) {
    const response = await call("GET", `/api/imports/${started.body.id}`, { token: user.token });
    if (response.body.status === "done" || response.body.status === "failed") return response.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`import ${started.body.id} did not finish`);
}

function entriesOf(user: TestUser, id: string): Promise<Entry[]> {
  return importEntries(user, id, 3);
}

const counts = (report: Report) => ({
  created: report.created,
  kept: report.kept,
  merged: report.merged,
  failed: report.failed,
});

/** Every entry in the report once, in file order; the counts add up to the entries; every entry not failed names a link of the workspace. */
async function expectAccounted(user: TestUser, report: Report): Promise<Entry[]> {
  expect(report).toMatchObject({ status: "done", processed: report.total });
  const entries = await entriesOf(user, report.id);
  expect(entries.map((entry) => entry.entry)).toEqual([...Array(report.total).keys()]);
  expect(Number(report.created) + Number(report.kept) + Number(report.merged) + Number(report.failed)).toBe(report.total);
  for (const outcome of ["created", "kept", "merged", "failed"]) {
    expect(entries.filter((entry) => entry.outcome === outcome).length, outcome).toBe(report[outcome]);
  }
  expect(entries.filter((entry) => entry.outcome === "failed").every((entry) => entry.error && entry.error.length > 10)).toBe(
    true,
  );
  if (!report.dry_run) {
    // A domain's root (Dub's _root) is no link: it is where the domain sends its root (root_destination).
    const rootless = entries.filter((entry) => entry.outcome !== "failed" && entry.link_id === null);
    for (const entry of rootless) expect(entry.code, "only a domain's root names no link").toMatch(/^https:\/\/[^/]+\/?$/);
    const named = entries.filter((entry) => entry.outcome !== "failed" && entry.link_id !== null).map((entry) => entry.link_id!);
    const links = await db().link.count({ where: { workspaceId: user.workspaceId, id: { in: named } } });
    expect(links).toBe(new Set(named).size);
  }
  return entries;
}

describe("every peer's own file: every row accounted for, and a second run changes nothing", () => {
  it.each(PEERS)(
    "$file: the check counts what the import does, the report adds up, and a re-run keeps every row",
    async (peer) => {
      const user = await newUser();
      const domain = await verifiedDomain(user);
      const file = peerFile(peer.file, domain.hostname);
      const check = await imported(user, file, peer.type, "?dry_run=1");
      await expectAccounted(user, check);
      expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(0);

      const run = await imported(user, file, peer.type);
      const entries = await expectAccounted(user, run);
      expect(counts(run)).toEqual(counts(check));
      expect(run.created).toBeGreaterThan(0);
      const links = await db().link.count({ where: { workspaceId: user.workspaceId } });
      const roots = entries.filter((entry) => entry.outcome === "created" && entry.link_id === null).length;
      expect(links).toBe(Number(run.created) - roots);

      // Codes on the verified domain are there; codes of other hosts are new links naming them.
      for (const entry of entries.filter((entry) => entry.outcome === "created" && entry.link_id !== null)) {
        const link = await db().link.findUniqueOrThrow({ where: { id: entry.link_id! } });
        if (link.host === null) expect(link.importedFrom ?? null, entry.code ?? "").not.toContain(domain.hostname);
        else expect(link.host).toBe(domain.hostname);
        if (entry.code) expect(link.importedFrom).not.toBeNull();
      }

      for (const again of [
        await imported(user, file, peer.type, `?format=${peer.format}`),
        await imported(user, file, peer.type, "?dry_run=1"),
      ]) {
        await expectAccounted(user, again);
        expect(counts(again)).toEqual({
          created: 0,
          kept: Number(run.created) + Number(run.kept) + Number(run.merged),
          merged: 0,
          failed: run.failed,
        });
      }
      expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(links);
    },
  );

  it.each(PEERS)(
    "$file with domain_id: rows of another host never land on the domain, and re-runs with and without it change nothing",
    async (peer) => {
      const user = await newUser();
      const domain = await verifiedDomain(user);
      const file = peerFile(peer.file, domain.hostname);
      const run = await imported(user, file, peer.type, `?domain_id=${domain.id}`);
      const entries = await expectAccounted(user, run);
      const onDomain = await db().link.findMany({ where: { workspaceId: user.workspaceId, host: domain.hostname } });
      for (const link of onDomain)
        expect(link.importedFrom, link.slug).toMatch(new RegExp(`^${domain.hostname.replaceAll(".", "\\.")}/`));
      const printedElsewhere = entries.filter(
        (entry) => entry.code && !entry.code.includes(domain.hostname) && entry.outcome === "created",
      );
      for (const entry of printedElsewhere) {
        expect((await db().link.findUniqueOrThrow({ where: { id: entry.link_id! } })).host, entry.code!).toBeNull();
      }
      const links = await db().link.count({ where: { workspaceId: user.workspaceId } });
      for (const query of [`?domain_id=${domain.id}`, ""]) {
        const again = await imported(user, file, peer.type, query);
        await expectAccounted(user, again);
        expect(counts(again), query).toMatchObject({ created: 0, failed: run.failed });
      }
      expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(links);
    },
  );

  it("carries archived and created_at, reads tags as names and titles only from the link", async () => {
    const user = await newUser();
    const domain = await verifiedDomain(user);
    for (const name of ["bitly-api-page.json", "dub-api-links.json", "rebrandly-api-links.json", "shortio-api-links.json"]) {
      await imported(user, peerFile(name, domain.hostname), "application/json");
    }
    const view = async (where: { importedFrom: string }) => {
      const link = await db().link.findFirstOrThrow({ where: { workspaceId: user.workspaceId, ...where } });
      return (await call("GET", `/api/links/${link.id}`, { token: user.token })).body;
    };
    const contact = await view({ importedFrom: `${domain.hostname}/contact-us` });
    expect(contact).toMatchObject({ title: "Contact", original_created_at: Date.parse("2024-04-01T10:00:00Z") });
    expect(contact.archived_at).toEqual(expect.any(Number));
    // A raw tab in a Bitly title does not refuse the page; the title keeps its words.
    expect(await view({ importedFrom: "bit.ly/3xYzAbc" })).toMatchObject({
      title: "Spring menu",
      tags: ["menus", "print"],
      archived_at: null,
    });
    // The same destination twice, as two Bitlinks: each printed code is a link of its own.
    expect(await view({ importedFrom: "bit.ly/4kPqRst" })).toMatchObject({
      destination: "https://example.com/bitly-api/spring",
      tags: ["posters"],
      archived_at: expect.any(Number),
    });
    expect(await view({ importedFrom: "dub.sh/aB3xY9" })).toMatchObject({
      archived_at: expect.any(Number),
      original_created_at: Date.parse("2025-03-02T10:00:00.000Z"),
    });
    expect(await view({ importedFrom: `${domain.hostname}/spring-menu` })).toMatchObject({ tags: ["menus", "print"] });
    expect(await view({ importedFrom: "rebrand.ly/rb-Kq7" })).toMatchObject({
      title: "On rebrand.ly",
      tags: ["print", "spring"],
    });
    // Short.io's link carries its owner's name in User: never a title.
    expect(await view({ importedFrom: `${domain.hostname}/sio-untitled` })).toMatchObject({ title: null });
    expect(await view({ importedFrom: "short.gy/Yq3Zk" })).toMatchObject({ archived_at: expect.any(Number), title: null });
  });
});
