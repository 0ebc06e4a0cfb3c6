import { clock } from "@/lib/clock";
import { db } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { runImport } from "@/lib/imports/job";
import { resetResolutionRuntime } from "@/lib/resolution/runtime";
import { beforeEach, describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { visit } from "../support/visits";

/**
 * Issue 42, item 3 (ADR 0010): a visit looks for its exact code first; with none, the one code of
 * its host equal to it ignoring case answers; no new code differs from another only by case, except
 * the case twins an import brings, which each keep resolving exactly.
 */
beforeEach(() => resetResolutionRuntime());

async function verifiedDomain(user: TestUser): Promise<{ id: string; hostname: string }> {
  const hostname = `go-${randomString("abcdefghijkmnpqrstuvwxyz", 8)}.slug-case.com`;
  const id = newId("dom");
  await db().domain.create({ data: { id, workspaceId: user.workspaceId, hostname, verifiedAt: new Date(clock().now()) } });
  return { id, hostname };
}

const create = (user: TestUser, body: Record<string, unknown>) => call("POST", "/api/links", { token: user.token, body });

/** Imports `codes` onto the domain as a job would (rows already read), and waits for it. */
async function importCodes(user: TestUser, hostname: string, codes: [string, string][]) {
  const rows = codes.map(([code, destination], index) => ({
    row: index + 2,
    destination,
    shortLink: `https://${hostname}/${code}`,
    title: null,
    tags: [],
  }));
  const id = newId("imp");
  await db().import.create({
    data: {
      id,
      workspaceId: user.workspaceId,
      userId: user.userId,
      format: "generic",
      dryRun: false,
      total: rows.length,
      source: JSON.stringify(rows),
      status: "queued",
    },
  });
  await runImport(id);
  return (await call("GET", `/api/imports/${id}`, { token: user.token })).body;
}

describe("a code typed in the wrong case (ADR 0010)", () => {
  it("reaches the only code of its host equal to it ignoring case, with the same answer; exact codes are untouched", async () => {
    const user = await newUser();
    const domain = await verifiedDomain(user);
    expect(
      (await create(user, { destination: "https://example.com/spring", slug: "spring-menu", domain_id: domain.id })).status,
    ).toBe(201);
    const exact = await visit("/spring-menu", { host: domain.hostname });
    expect([exact.status, exact.headers.Location]).toEqual([302, "https://example.com/spring"]);
    for (const typed of ["/Spring-Menu", "/SPRING-MENU", "/spring-MENU"]) {
      const answer = await visit(typed, { host: domain.hostname });
      expect([typed, answer.status, answer.headers]).toEqual([typed, exact.status, exact.headers]);
    }
    // Only on its own host: the short host has no such code.
    expect((await visit("/Spring-Menu")).status).toBe(404);
    expect((await visit("/Spring-Menux", { host: domain.hostname })).status).toBe(404);
  });

  it("follows the code's changes in the cache: a repoint reaches the typed form at once, and so does a new case twin", async () => {
    const user = await newUser();
    const domain = await verifiedDomain(user);
    const link = (await create(user, { destination: "https://example.com/before", slug: "baguette", domain_id: domain.id })).body;
    expect((await visit("/Baguette", { host: domain.hostname })).headers.Location).toBe("https://example.com/before");
    await call("PATCH", `/api/links/${link.id}`, { token: user.token, body: { destination: "https://example.com/after" } });
    expect((await visit("/Baguette", { host: domain.hostname })).headers.Location).toBe("https://example.com/after");
    // A miss for a typed form is dropped too when a code folding the same is created.
    expect((await visit("/Croissant", { host: domain.hostname })).status).toBe(404);
    expect(
      (await create(user, { destination: "https://example.com/croissant", slug: "croissant", domain_id: domain.id })).status,
    ).toBe(201);
    expect((await visit("/Croissant", { host: domain.hostname })).headers.Location).toBe("https://example.com/croissant");
    // An imported twin makes a third case ambiguous at once: it is unknown again.
    const report = await importCodes(user, domain.hostname, [["BAGUETTE", "https://example.com/upper"]]);
    expect(report).toMatchObject({ status: "done", created: 1, failed: 0 });
    expect((await visit("/Baguette", { host: domain.hostname })).status).toBe(404);
    expect((await visit("/baguette", { host: domain.hostname })).headers.Location).toBe("https://example.com/after");
    expect((await visit("/BAGUETTE", { host: domain.hostname })).headers.Location).toBe("https://example.com/upper");
  });

  it("refuses a new custom slug differing from an existing one only by case with 409 and a sentence; an import keeps its source's twins", async () => {
    const user = await newUser();
    const domain = await verifiedDomain(user);
    expect(
      (await create(user, { destination: "https://example.com/menu", slug: "menu-card", domain_id: domain.id })).status,
    ).toBe(201);
    const twin = await create(user, { destination: "https://example.com/other", slug: "Menu-Card", domain_id: domain.id });
    expect([twin.status, twin.body.error]).toEqual([
      409,
      expect.stringMatching(/^The slug "Menu-Card" differs only in case from "menu-card", which already exists on this host/),
    ]);
    const bulk = await call("POST", "/api/links/bulk", {
      token: user.token,
      body: { links: [{ destination: "https://example.com/other", slug: "MENU-CARD", domain_id: domain.id }] },
    });
    expect(bulk.body.results[0]).toMatchObject({ status: 409, error: expect.stringMatching(/differs only in case/) });
    // The same exact slug is still "taken", with its own sentence.
    const taken = await create(user, { destination: "https://example.com/other", slug: "menu-card", domain_id: domain.id });
    expect([taken.status, taken.body.error]).toEqual([409, expect.stringMatching(/already taken on this host/)]);

    // A source with case twins: each is kept and resolves exactly; a third case matches two, so it is unknown.
    const report = await importCodes(user, domain.hostname, [
      ["Pain", "https://example.com/pain-upper"],
      ["pain", "https://example.com/pain-lower"],
      ["MENU-CARD", "https://example.com/menu-upper"],
    ]);
    expect(report).toMatchObject({ status: "done", created: 3, failed: 0 });
    const stored = await db().link.findMany({ where: { host: domain.hostname }, select: { slug: true, caseTwin: true } });
    const twinOf = new Map(stored.map((link) => [link.slug, link.caseTwin]));
    expect([twinOf.get("menu-card"), twinOf.get("MENU-CARD")]).toEqual([false, true]);
    // The rows of a batch run side by side: whichever of the pair came second is the marked twin.
    expect([twinOf.get("Pain"), twinOf.get("pain")].sort()).toEqual([false, true]);
    for (const [path, location] of [
      ["/Pain", "https://example.com/pain-upper"],
      ["/pain", "https://example.com/pain-lower"],
      ["/menu-card", "https://example.com/menu"],
      ["/MENU-CARD", "https://example.com/menu-upper"],
    ]) {
      expect([path, (await visit(path!, { host: domain.hostname })).headers.Location]).toEqual([path, location]);
    }
    expect((await visit("/PAIN", { host: domain.hostname })).status).toBe(404);
    // A second run of the same import changes nothing.
    const again = await importCodes(user, domain.hostname, [
      ["Pain", "https://example.com/pain-upper"],
      ["pain", "https://example.com/pain-lower"],
    ]);
    expect(again).toMatchObject({ status: "done", created: 0, kept: 2, failed: 0 });
  });
});
