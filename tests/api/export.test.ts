import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser } from "../support/api";

/** Splits RFC 4180 text into records of fields (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quoted && char === '"' && text[index + 1] === '"') {
      field += '"';
      index++;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (!quoted && char === ",") {
      record.push(field);
      field = "";
    } else if (!quoted && char === "\r" && text[index + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      index++;
    } else {
      field += char;
    }
  }
  return records;
}

describe("GET /api/links/export", () => {
  it("writes every link, archived included, as CSV with formula cells neutralised", async () => {
    const user = await newUser();
    const formula = '=HYPERLINK("https://evil.example","Click")';
    const made = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/menu", title: formula, tags: ["print", "@home"] },
    });
    expect(made.status).toBe(201);
    const archived = await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/old" } });
    await call("DELETE", `/api/links/${archived.body.id}`, { token: user.token });

    const response = await call("GET", "/api/links/export", { token: user.token });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="links.csv"');
    expect(response.text).toContain(`"'=HYPERLINK(""https://evil.example"",""Click"")"`);
    const [header, ...rows] = parseCsv(response.text);
    expect(header).toEqual([
      "id",
      "short_url",
      "slug",
      "host",
      "destination",
      "status",
      "tags",
      "title",
      "created_at",
      "archived_at",
      "imported_from",
      "scan_limit_after",
      "scan_limit_destination",
      "password_protected",
      "preview_title",
      "preview_description",
      "preview_image_url",
      "preview_count",
      "scans_30d",
    ]);
    expect(rows).toHaveLength(2);
    const byId = new Map(rows.map((row) => [row[0], row]));
    expect(byId.get(made.body.id)).toEqual([
      made.body.id,
      made.body.short_url,
      made.body.slug,
      "",
      "https://example.com/menu",
      "quarantine",
      "'@home, print",
      `'${formula}`,
      new Date(made.body.created_at).toISOString(),
      "",
      "",
      "",
      "",
      "false",
      "",
      "",
      "",
      "0",
      "0",
    ]);
    expect(byId.get(archived.body.id)![9]).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("quotes every text cell and neutralises a formula behind a separator-like character", async () => {
    const user = await newUser();
    const titles = [";=1+1", "|;@SUM(A1)", ",-2+3", "Spring menu"];
    for (const [index, title] of titles.entries()) {
      const body = { destination: `https://example.com/m${index}`, title };
      const made = await call("POST", "/api/links", { token: user.token, body });
      expect(made.status, made.text).toBe(201);
    }
    const response = await call("GET", "/api/links/export", { token: user.token });
    expect(response.status).toBe(200);
    expect(response.text).toContain(`"';=1+1"`);
    expect(response.text).toContain(`"',-2+3"`);
    expect(response.text).toContain(`"Spring menu"`);
    expect(response.text).toContain(`"https://example.com/m3"`);
    const written = parseCsv(response.text)
      .slice(1)
      .map((row) => row[7]);
    expect(written.sort()).toEqual(["'|;@SUM(A1)", "',-2+3", "';=1+1", "Spring menu"].sort());
  });

  it("exports at most 10 times a minute per credential, then 429 with Retry-After and a sentence", async () => {
    const [user, neighbour] = await Promise.all([newUser("export-limit"), newUser("export-neighbour")]);
    const network = { "x-forwarded-for": "192.0.2.88" };
    const statuses: number[] = [];
    for (let index = 0; index < 10; index++)
      statuses.push((await call("GET", "/api/links/export", { token: user.token, headers: network })).status);
    expect(statuses).toEqual(Array(10).fill(200));
    const refused = await call("GET", "/api/links/export?format=json", { token: user.token, headers: network });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(refused.body.error).toMatch(/^Too many exports this minute with this credential/);
    expect((await call("GET", "/api/links/export", { token: neighbour.token, headers: network })).status).toBe(200);
  });

  it("pages through thousands of links as JSON, each once, and lets a viewer export", async () => {
    const owner = await newUser();
    const total = 1234;
    const start = Date.UTC(2026, 0, 1);
    await db().link.createMany({
      data: Array.from({ length: total }, (_, index) => ({
        id: newId("lnk"),
        workspaceId: owner.workspaceId,
        slug: `x${index.toString(36)}-${owner.workspaceId.slice(-6)}`,
        reusable: false,
        destination: `https://example.com/${index}`,
        // Every ten share a time, so the keyset must break ties by id.
        createdAt: new Date(start + Math.floor(index / 10) * 1000),
      })),
    });
    const viewer = await joinWorkspace(await newUser(), owner.workspaceId, "viewer");
    const response = await call("GET", "/api/links/export?format=json", viewer);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const ids = response.body.links.map((link: { id: string }) => link.id);
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    expect(response.body.links[0]).toMatchObject({ destination: expect.stringMatching(/\/123[0-3]$/), tags: [], scans_30d: 0 });
  });

  it("carries each link's history in JSON, as the history endpoint gives it, one link's thousands of rows included", async () => {
    const owner = await newUser("export-history-owner");
    const alice = await newUser("export-history-alice");
    const asAlice = await joinWorkspace(alice, owner.workspaceId, "admin");
    const made = await call("POST", "/api/links", { token: owner.token, body: { destination: "https://example.com/first" } });
    expect(made.status).toBe(201);
    const edited = await call("PATCH", `/api/links/${made.body.id}`, {
      ...asAlice,
      body: { destination: "https://example.com/second" },
    });
    expect(edited.status).toBe(200);
    expect((await call("DELETE", `/api/links/${made.body.id}`, asAlice)).status).toBe(200);
    // Another link with more history rows than the export reads at once, so it is written in pieces.
    const busy = await call("POST", "/api/links", { token: owner.token, body: { destination: "https://example.com/busy" } });
    const recorded = (await db().linkHistory.findFirstOrThrow({ where: { linkId: busy.body.id } })).after as object;
    const edits = 4321;
    await db().linkHistory.createMany({
      data: Array.from({ length: edits }, (_, index) => ({
        linkId: busy.body.id,
        workspaceId: owner.workspaceId,
        occurredAt: new Date(Date.UTC(2026, 5, 1) + index * 1000),
        change: "edited",
        via: "api_key",
        actorKind: "api_key",
        actorId: `key-${index}`,
        changed: ["title"],
        before: recorded,
        after: recorded,
      })),
    });
    const quiet = await call("POST", "/api/links", { token: owner.token, body: { destination: "https://example.com/quiet" } });

    const response = await call("GET", "/api/links/export?format=json", { token: owner.token });
    expect(response.status).toBe(200);
    const links = response.body.links as {
      id: string;
      history: { change: string; by: { email: string | null; api_key_id: string | null } }[];
    }[];
    const byId = new Map(links.map((link) => [link.id, link]));
    const history = await call("GET", `/api/links/${made.body.id}/history`, { token: owner.token });
    expect(byId.get(made.body.id)!.history).toEqual(history.body.entries);
    expect(byId.get(made.body.id)!.history.map((entry) => [entry.change, entry.by.email])).toEqual([
      ["archived", alice.email],
      ["edited", alice.email],
      ["created", owner.email],
    ]);
    const busyHistory = byId.get(busy.body.id)!.history;
    expect(busyHistory).toHaveLength(edits + 1);
    expect(busyHistory.slice(0, 2).map((entry) => entry.by.api_key_id)).toEqual([`key-${edits - 1}`, `key-${edits - 2}`]);
    expect(busyHistory.at(-1)!.change).toBe("created");
    expect(byId.get(quiet.body.id)!.history.map((entry) => entry.change)).toEqual(["created"]);
    // Most recent first, as before.
    expect(links.map((link) => link.id)).toEqual([quiet.body.id, busy.body.id, made.body.id]);
  });

  it("refuses an unknown format with 400", async () => {
    const response = await call("GET", "/api/links/export?format=xlsx", { token: (await newUser()).token });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/csv or json/);
  });
});
