import { pool } from "@/lib/db/pool";
import { newId, randomString } from "@/lib/db/random";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { ACTIVE, QUARANTINE } from "@/lib/links/status";
import { describe, expect, it } from "vitest";
import { FIND_LINKS, findLink } from "./store";

async function seedLinks(count: number, host: string | null): Promise<{ slug: string; destination: string }[]> {
  const workspaceId = newId("ws");
  await pool().query("INSERT INTO workspaces (id, name, kind) VALUES ($1, 'Store', 'team')", [workspaceId]);
  const links = Array.from({ length: count }, (_, index) => ({
    slug: `st${randomString(SLUG_ALPHABET, 8)}`,
    destination: `https://example.com/${index}`,
  }));
  for (const [index, link] of links.entries()) {
    await pool().query(
      "INSERT INTO links (id, workspace_id, host, slug, reusable, status, destination) VALUES ($1, $2, $3, $4, false, $5, $6)",
      [newId("lnk"), workspaceId, host, link.slug, index % 2 ? QUARANTINE : ACTIVE, link.destination],
    );
  }
  return links;
}

describe("findLink", () => {
  it("answers many lookups made at once, across hosts and misses, each with its own link", async () => {
    const onShortHost = await seedLinks(20, null);
    const onCustomDomain = await seedLinks(5, "go.store.example");
    const [sameSlugElsewhere] = onCustomDomain;
    const lookups = [
      ...onShortHost.map((link) => ({ host: null, slug: link.slug, expected: link.destination })),
      ...onCustomDomain.map((link) => ({ host: "go.store.example", slug: link.slug, expected: link.destination })),
      { host: null, slug: sameSlugElsewhere!.slug, expected: null },
      { host: "other.store.example", slug: onShortHost[0]!.slug, expected: null },
      { host: null, slug: "NoSuchSlug", expected: null },
      { host: null, slug: onShortHost[3]!.slug, expected: onShortHost[3]!.destination },
    ];
    const found = await Promise.all(lookups.map((lookup) => findLink(lookup.host, lookup.slug)));
    expect(found.map((link) => link?.destination ?? null)).toEqual(lookups.map((lookup) => lookup.expected));
    expect(found[1]).toMatchObject({
      host: null,
      slug: onShortHost[1]!.slug,
      status: QUARANTINE,
      cleanChecks: 0,
      lastCountedCheckAt: null,
      abuseReason: null,
    });
    expect(typeof found[1]!.createdAt).toBe("number");
  });

  it("probes the (host, slug) unique index rather than scanning the table", async () => {
    // A test table is small enough that a scan would win; what matters is that the index can serve the query.
    const client = await pool().connect();
    try {
      await client.query("SET enable_seqscan = off");
      const { rows } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${FIND_LINKS}`, [
        ["", "go.example"],
        ["abc", "def"],
      ]);
      expect(rows.map((row) => row["QUERY PLAN"]).join("\n")).toContain("links_host_slug_key");
    } finally {
      await client.query("RESET enable_seqscan");
      client.release();
    }
  });
});
