import { scanBuffer } from "@/lib/analytics/scans";
import { listScanCounts } from "@/lib/analytics/service";
import { db } from "@/lib/db/client";
import { randomString } from "@/lib/db/random";
import { BROWSE_PAGE_SIZE, browseLinks, browseLinksQuery } from "@/lib/links/browse";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { ABUSE } from "@/lib/links/status";
import type { Principal } from "@/lib/workspaces/types";
import { describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { visit } from "../support/visits";

const PHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

const ownerOf = (user: TestUser): Principal => ({
  kind: "session",
  userId: user.userId,
  workspaceId: user.workspaceId,
  role: "owner",
});

/** Every page of the list in one order, following the cursors. */
async function everyPage(principal: Principal, search: Record<string, string>) {
  const seen: { id: string; scans: number; createdAt: Date }[] = [];
  let cursor: string | undefined;
  do {
    const page = await browseLinks(principal, browseLinksQuery.parse({ ...search, cursor }), await listScanCounts(principal));
    seen.push(...page.links);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return seen;
}

describe("the dashboard's links list", () => {
  it("orders by creation either way and by scans, and its cursors page through every link once in each order", async () => {
    const user = await newUser("browse");
    const principal = ownerOf(user);
    const count = BROWSE_PAGE_SIZE + 7;
    const slugs: string[] = [];
    for (let index = 0; index < count; index++) {
      const slug = `browse-${randomString(SLUG_ALPHABET, 8)}`;
      const response = await call("POST", "/api/links", { ...user, body: { destination: `https://example.com/${slug}`, slug } });
      expect(response.status).toBe(201);
      slugs.push(slug);
    }
    // Scans for a few links, some tied: 3, 2, 2, 1; the rest have none.
    const scansBySlug = new Map([
      [slugs[5]!, 3],
      [slugs[40]!, 2],
      [slugs[52]!, 2],
      [slugs[0]!, 1],
    ]);
    let address = 0;
    for (const [slug, scans] of scansBySlug)
      for (let scan = 0; scan < scans; scan++)
        await visit(`/${slug}`, { headers: { "User-Agent": PHONE, "X-Forwarded-For": `198.51.100.${++address}` } });
    await scanBuffer().flush();

    const rows = await db().link.findMany({
      where: { workspaceId: user.workspaceId },
      select: { id: true, slug: true, createdAt: true },
    });
    const byCreation = [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));

    const newest = await everyPage(principal, {});
    expect(newest.map((link) => link.id)).toEqual(byCreation.map((link) => link.id).reverse());
    const oldest = await everyPage(principal, { sort: "oldest" });
    expect(oldest.map((link) => link.id)).toEqual(byCreation.map((link) => link.id));

    const byScans = await everyPage(principal, { sort: "scans" });
    const scansOf = (id: string) => scansBySlug.get(rows.find((row) => row.id === id)!.slug) ?? 0;
    const expected = [...rows].sort((a, b) => scansOf(b.id) - scansOf(a.id) || (a.id < b.id ? 1 : -1)).map((row) => row.id);
    expect(byScans.map((link) => link.id)).toEqual(expected);
    expect(byScans.slice(0, 4).map((link) => link.scans)).toEqual([3, 2, 2, 1]);
    expect(new Set(byScans.map((link) => link.id)).size).toBe(count);

    // A cursor of another order, or one edited, starts again from the first page instead of failing.
    const firstPage = await browseLinks(principal, browseLinksQuery.parse({}), await listScanCounts(principal));
    const mixed = await browseLinks(
      principal,
      browseLinksQuery.parse({ sort: "scans", cursor: firstPage.nextCursor }),
      await listScanCounts(principal),
    );
    expect(mixed.links[0]!.id).toBe(expected[0]);
    const edited = await browseLinks(
      principal,
      browseLinksQuery.parse({ cursor: "bmV3ZXN0Oi0xOng" }),
      await listScanCounts(principal),
    );
    expect(edited.links[0]!.id).toBe(newest[0]!.id);
    // Fifty-seven links are created through the API first: on a loaded machine that takes more than the default 20 s.
  }, 90_000);

  it("searches a substring as typed: LIKE's wildcards match only themselves", async () => {
    const user = await newUser("browse-search");
    for (const destination of ["https://example.com/100%25-off", "https://example.com/1000-off", "https://example.com/a_b"])
      expect((await call("POST", "/api/links", { ...user, body: { destination } })).status).toBe(201);
    const search = async (q: string) =>
      (await browseLinks(ownerOf(user), browseLinksQuery.parse({ q }), await listScanCounts(ownerOf(user)))).links.map(
        (link) => link.destination,
      );
    expect(await search("100%")).toEqual(["https://example.com/100%25-off"]);
    expect(await search("a_b")).toEqual(["https://example.com/a_b"]);
    expect(await search("A_")).toEqual(["https://example.com/a_b"]);
    expect(await search("1000")).toEqual(["https://example.com/1000-off"]);
  });

  it("shows each link's title and coloured tags, finds a title, and filters by a tag whatever its case", async () => {
    const user = await newUser("browse-tags");
    expect((await call("POST", "/api/tags", { ...user, body: { name: "Print", color: "teal" } })).status).toBe(201);
    const create = (body: object) => call("POST", "/api/links", { ...user, body });
    expect(
      (await create({ destination: "https://example.com/lunch", title: "Lunch menu", tags: ["print", "menus"] })).status,
    ).toBe(201);
    expect((await create({ destination: "https://example.com/dinner", tags: ["menus"] })).status).toBe(201);
    const browse = async (search: Record<string, string>) =>
      (await browseLinks(ownerOf(user), browseLinksQuery.parse(search), await listScanCounts(ownerOf(user)))).links;

    const lunch = (await browse({})).find((link) => link.destination.endsWith("/lunch"))!;
    expect(lunch.title).toBe("Lunch menu");
    expect(lunch.tags).toEqual([
      { name: "menus", color: "blue" },
      { name: "Print", color: "teal" },
    ]);
    expect((await browse({})).find((link) => link.destination.endsWith("/dinner"))!.title).toBeNull();
    expect((await browse({ q: "lunch MENU" })).map((link) => link.destination)).toEqual(["https://example.com/lunch"]);
    expect((await browse({ tag: "PRINT" })).map((link) => link.destination)).toEqual(["https://example.com/lunch"]);
    expect((await browse({ tag: "menus" })).length).toBe(2);
    expect(await browse({ tag: "nothing-like-this" })).toEqual([]);
  });

  it("filters by status and by host, the default short host or a custom one, and lists archived links apart", async () => {
    const user = await newUser("browse-filters");
    const create = async (path: string) => {
      const created = await call("POST", "/api/links", { ...user, body: { destination: `https://example.com/${path}` } });
      expect(created.status, created.text).toBe(201);
      return created.body as { id: string };
    };
    const [onDefault, onCustom, blocked, archived] = [await create("a"), await create("b"), await create("c"), await create("d")];
    // The host and the status as a verified domain and an operator's decision leave them: the filters read only the columns.
    await db().link.update({ where: { id: onCustom.id }, data: { host: "go.browse-filters.example" } });
    await db().link.update({ where: { id: blocked.id }, data: { status: ABUSE } });
    expect((await call("DELETE", `/api/links/${archived.id}`, user)).status).toBe(200);
    const browse = async (search: Record<string, string>) =>
      (await browseLinks(ownerOf(user), browseLinksQuery.parse(search), await listScanCounts(ownerOf(user)))).links
        .map((link) => link.id)
        .sort();

    expect(await browse({})).toEqual([onDefault.id, onCustom.id, blocked.id].sort());
    expect(await browse({ status: "abuse" })).toEqual([blocked.id]);
    expect(await browse({ status: "quarantine" })).toEqual([onDefault.id, onCustom.id].sort());
    expect(await browse({ domain: "go.browse-filters.example" })).toEqual([onCustom.id]);
    expect(await browse({ domain: "default" })).toEqual([onDefault.id, blocked.id].sort());
    expect(await browse({ view: "archived" })).toEqual([archived.id]);
  });
});
