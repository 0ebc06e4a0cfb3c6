import { clock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { runImport } from "@/lib/imports/job";
import { resetSafetyChecker } from "@/lib/safety/instance";
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { APP_ORIGIN, call, dispatch, joinWorkspace, newUser, type TestUser } from "../support/api";
import { startFakeDnsServer } from "../support/fake-dns-server";
import { deepJson, largeCsv, wideCsv } from "../support/hostile-imports";
import { importFinished } from "../support/import-entries";
import { connectMcp } from "../support/mcp";
import { visit } from "../support/visits";

const fixture = (name: string) => readFileSync(`tests/fixtures/imports/${name}`);

async function startImport(user: TestUser, body: string | Uint8Array, contentType: string, query = "") {
  return call("POST", `/api/imports${query}`, {
    token: user.token,
    rawBody: typeof body === "string" ? body : new Uint8Array(body),
    headers: { "content-type": contentType },
  });
}

async function verifiedDomain(user: TestUser): Promise<{ id: string; hostname: string }> {
  const hostname = `go-${randomString("abcdefghijkmnpqrstuvwxyz", 8)}.import-test.com`;
  const id = newId("dom");
  await db().domain.create({ data: { id, workspaceId: user.workspaceId, hostname, verifiedAt: new Date(clock().now()) } });
  return { id, hostname };
}

/** `count` rows read from a file, each to its own page under https://example.com/`path`/. */
function plainRows(count: number, path: string) {
  return Array.from({ length: count }, (_, index) => ({
    row: index + 2,
    destination: `https://example.com/${path}/${index}`,
    shortLink: null,
    title: null,
    tags: [],
  }));
}

/** An import as a job finds it in the database, its rows already read. */
async function storedImport(
  user: TestUser,
  rows: { row: number; destination: string; shortLink: string | null; title: null; tags: string[] }[],
  state: { status: "queued" | "running"; nextRow?: number; created?: number; leaseUntil?: Date },
): Promise<string> {
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
      ...state,
    },
  });
  return id;
}

describe("POST /api/imports", () => {
  it("imports a Bitly export: slugs kept on the verified domain, others allocated with imported_from; twice creates nothing", async () => {
    const user = await newUser();
    const domain = await verifiedDomain(user);
    const file = fixture("bitly.csv").toString("utf8").replaceAll("go.DOMAIN", domain.hostname);
    const started = await startImport(user, file, "text/csv");
    expect(started.status).toBe(202);
    // Three rows, and the spring menu's custom back-half on the domain is a fourth printed code.
    expect(started.body).toMatchObject({ status: "queued", dry_run: false, total: 4, created: 0 });
    const done = await importFinished(user, started.body.id);
    expect(done).toMatchObject({ status: "done", total: 4, created: 4, skipped: 0, failed: 0, errors: [] });

    const links = await db().link.findMany({ where: { workspaceId: user.workspaceId }, orderBy: { destination: "asc" } });
    const contact = links.find((link) => link.destination === "https://example.com/contact")!;
    expect(contact).toMatchObject({ host: domain.hostname, slug: "contact-us", importedFrom: `${domain.hostname}/contact-us` });
    const spring = links.find((link) => link.destination === "https://example.com/menus/spring" && link.host === null)!;
    expect(spring).toMatchObject({ importedFrom: "bit.ly/3xYzAbc", title: 'Spring menu, with "specials"' });
    const backHalf = await visit("/spring-menu", { host: domain.hostname });
    expect([backHalf.status, backHalf.headers.Location]).toEqual([302, "https://example.com/menus/spring"]);
    const view = await call("GET", `/api/links/${spring.id}`, { token: user.token });
    expect(view.body).toMatchObject({ tags: ["menus", "print"], imported_from: "bit.ly/3xYzAbc" });
    const summer = links.find((link) => link.destination === "https://example.com/posters/summer")!;
    expect(summer.title).toBe("Summer poster line two");

    const again = await importFinished(user, (await startImport(user, file, "text/csv")).body.id);
    expect(again).toMatchObject({ created: 0, skipped: 4, failed: 0 });
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(4);
  });

  it("keeps codes printed with 0, O, 1, l or I as they were, and they resolve on the domain through the door", async () => {
    const user = await newUser();
    const domain = await verifiedDomain(user);
    const bitly = fixture("bitly-printed.csv").toString("utf8").replaceAll("go.DOMAIN", domain.hostname);
    const dry = await importFinished(user, (await startImport(user, bitly, "text/csv", "?dry_run=1")).body.id);
    const done = await importFinished(user, (await startImport(user, bitly, "text/csv")).body.id);
    for (const report of [dry, done]) {
      // Still case-sensitive; two characters are a code; a page's name is no page on a custom domain,
      // but a path below the API's is the service's own (the report names it).
      expect(report).toMatchObject({ status: "done", total: 7, created: 6, failed: 1 });
      expect(report.errors).toEqual([
        {
          row: 8,
          error: expect.stringMatching(/"slug" is invalid: is under \/api, which this service answers itself/),
          subject: `https://${domain.hostname}/api/v2`,
        },
      ]);
    }

    const madeHere = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/made-here", slug: "made-here", domain_id: domain.id },
    });
    expect(madeHere.status).toBe(201);
    const shlinkFile = fixture("shlink-printed.csv").toString("utf8").replaceAll("go.DOMAIN", domain.hostname);
    const shlink = await startImport(user, shlinkFile, "text/csv", "?format=shlink");
    const shlinkDone = await importFinished(user, shlink.body.id);
    // A code imported before is kept with its link; one taken on the domain by a link made here is
    // that row's error, never a silent new slug.
    expect(shlinkDone).toMatchObject({ status: "done", total: 3, created: 1, kept: 1, failed: 1 });
    expect(shlinkDone.errors).toEqual([
      {
        row: 4,
        error: expect.stringContaining('The slug "made-here" is already taken'),
        subject: expect.stringContaining("made-here"),
      },
    ]);

    const printed: [string, string][] = [
      ["/Menu1", "https://example.com/printed/menu-one"],
      ["/menu1", "https://example.com/printed/menu-lower"],
      ["/lOgo", "https://example.com/printed/logo"],
      ["/I0l1O", "https://example.com/printed/all-five"],
      ["/0ld-f1yer", "https://example.com/shlink/old-flyer"],
      ["/Docs", "https://example.com/printed/reserved"],
      ["/l1", "https://example.com/printed/two-characters"],
      ["/made-here", "https://example.com/made-here"],
    ];
    for (const [path, destination] of printed) {
      const answer = await visit(path, { host: domain.hostname });
      expect([path, answer.status, answer.headers.Location]).toEqual([path, 302, destination]);
    }
    // A code typed in another case reaches the one code it matches (ADR 0010): "Docs" and "lOgo" are
    // alone in their folded forms; "Menu1" and "menu1" are case twins, so "MENU1" is unknown.
    for (const [path, destination] of [
      ["/docs", "https://example.com/printed/reserved"],
      ["/logo", "https://example.com/printed/logo"],
    ])
      expect((await visit(path!, { host: domain.hostname })).headers.Location).toBe(destination);
    expect((await visit("/MENU1", { host: domain.hostname })).status).toBe(404);
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(8);
  });

  it("refuses those characters in a slug typed into a create, a bulk create or a rule it shares with imports", async () => {
    const user = await newUser();
    const sentence = /"slug" is invalid: may use letters and digits except 0, O, 1, l and I, plus - and _, with \. or ~ between/;
    const single = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/a", slug: "Menu1" },
    });
    expect(single.status).toBe(400);
    expect(single.body.error).toMatch(sentence);
    const bulk = await call("POST", "/api/links/bulk", {
      token: user.token,
      body: { links: [{ destination: "https://example.com/b", slug: "lOgo" }] },
    });
    expect(bulk.body.results).toEqual([{ index: 0, status: 400, error: expect.stringMatching(sentence) }]);
    // An import brings what was printed elsewhere (café, menu.pdf); a character no service prints in a code is still refused.
    const domain = await verifiedDomain(user);
    const odd = `long_url,link\nhttps://example.com/c,${domain.hostname}/%E2%9C%93\n`;
    const done = await importFinished(user, (await startImport(user, odd, "text/csv")).body.id);
    expect(done.errors).toEqual([
      {
        row: 2,
        error: expect.stringMatching(/"slug" is invalid: may use letters of any script, digits and - _ \. ~/),
        subject: `${domain.hostname}/%E2%9C%93`,
      },
    ]);
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
  });

  it.each([
    ["shlink.csv", "text/csv", "shlink", 2],
    ["kutt.json", "application/json", "kutt", 2],
    ["dub.csv", "text/csv", "dub", 2],
    ["rebrandly.csv", "text/csv", "rebrandly", 1],
    ["shortio.csv", "text/csv", "shortio", 1],
  ])("imports %s (format %s too)", async (name, contentType, format, count) => {
    const user = await newUser();
    const auto = await importFinished(user, (await startImport(user, fixture(name), contentType)).body.id);
    expect(auto).toMatchObject({ status: "done", created: count, failed: 0 });
    const named = await startImport(user, fixture(name), contentType, `?format=${format}`);
    expect(named.status).toBe(202);
    expect(await importFinished(user, named.body.id)).toMatchObject({ created: 0, skipped: count });
  });

  it("refuses internal destinations row by row, never storing them, and keeps the good rows", async () => {
    const user = await newUser();
    const done = await importFinished(user, (await startImport(user, fixture("internal.csv"), "text/csv")).body.id);
    expect(done).toMatchObject({ created: 1, failed: 2 });
    expect(done.errors.map((error: { row: number }) => error.row)).toEqual([2, 3]);
    expect(done.errors[0].error).toEqual(expect.any(String));
    const stored = await db().link.findMany({ where: { workspaceId: user.workspaceId }, select: { destination: true } });
    expect(stored).toEqual([{ destination: "https://example.com/fine" }]);
  });

  it("completes a destination written without https:// as the dashboard does, and leaves another scheme to the checks", async () => {
    const user = await newUser();
    const file = "long_url\nexample.com/menu\n//example.com/about\nhttp://example.com/plain\njavascript:alert(1)\n";
    const done = await importFinished(user, (await startImport(user, file, "text/csv")).body.id);
    expect(done).toMatchObject({ created: 3, failed: 1 });
    expect(done.errors.map((error: { row: number }) => error.row)).toEqual([5]);
    const stored = await db().link.findMany({ where: { workspaceId: user.workspaceId }, select: { destination: true } });
    expect(stored.map((link) => link.destination).toSorted()).toEqual([
      "http://example.com/plain",
      "https://example.com/about",
      "https://example.com/menu",
    ]);
  });

  it("validates and counts on a dry run, and writes nothing", async () => {
    const user = await newUser();
    const started = await startImport(user, fixture("internal.csv"), "text/csv", "?dry_run=1");
    expect(started.body.dry_run).toBe(true);
    expect(await importFinished(user, started.body.id)).toMatchObject({ created: 1, failed: 2 });
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
  });

  it("takes a formula in a title as text, and the export writes it neutralised", async () => {
    const user = await newUser();
    await importFinished(user, (await startImport(user, fixture("formula.csv"), "text/csv")).body.id);
    const exported = await call("GET", "/api/links/export", { token: user.token });
    expect(exported.text).toContain(`"'=HYPERLINK(""https://evil.example"",""Click"")"`);
  });

  it("folds 10,000 duplicate rows into one link", async () => {
    const user = await newUser();
    const file = `long_url\n${"https://example.com/same\n".repeat(10_000)}`;
    const done = await importFinished(user, (await startImport(user, file, "text/csv")).body.id);
    expect(done).toMatchObject({ total: 10_000, created: 1, skipped: 9_999, failed: 0 });
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(1);
  }, 300_000);

  it.each([
    ["a PNG", fixture("not-a-csv.png"), "text/csv", 400, /not CSV or JSON/],
    ["an image type", fixture("not-a-csv.png"), "image/png", 400, /text\/csv or application\/json/],
    ["malformed quoting", fixture("malformed-quoting.csv"), "text/csv", 400, /quoting is broken/],
    ["no destination column", "name,link\nx,bit.ly/x\n", "text/csv", 400, /no destination column/],
    ["100,001 rows", `url\n${"https://example.com/r\n".repeat(100_001)}`, "text/csv", 413, /20 MB and 100,000 rows/],
    ["over 20 MB", `url\n${"https://example.com/".padEnd(1000, "x").concat("\n").repeat(21_000)}`, "text/csv", 413, /20 MB/],
  ])("refuses %s", async (_label, body, contentType, status, message) => {
    const user = await newUser();
    const response = await startImport(user, body, contentType);
    expect(response.status).toBe(status);
    expect(response.body.error).toMatch(message);
    expect(await db().import.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
  });

  it("names the formats when the format is unknown", async () => {
    const response = await startImport(await newUser(), "url\nhttps://example.com/\n", "text/csv", "?format=tinyurl");
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/auto, bitly, dub, rebrandly, shortio, shlink, kutt, generic/);
  });

  it("resumes a job a restart interrupted where it stopped, and one job at a time holds it", async () => {
    const user = await newUser();
    const file = `url\n${Array.from({ length: 120 }, (_, i) => `https://example.com/resume/${i}`).join("\n")}\n`;
    const started = await startImport(user, file, "text/csv");
    await importFinished(user, started.body.id);
    // As a restart leaves it: half done, the lease run out, the file still there.
    const rows = plainRows(130, "again");
    const id = await storedImport(user, rows, {
      status: "running",
      nextRow: 100,
      created: 100,
      leaseUntil: new Date(Date.now() - 1000),
    });
    await Promise.all([runImport(id), runImport(id), runImport(id)]);
    const done = await importFinished(user, id);
    expect(done).toMatchObject({ status: "done", processed: 130, created: 130 });
    expect(
      await db().link.count({
        where: { workspaceId: user.workspaceId, destination: { startsWith: "https://example.com/again/" } },
      }),
    ).toBe(30);
  });

  it("decides rows of one batch that share a code or a destination in file order, as one after another", async () => {
    const user = await newUser();
    const domain = await verifiedDomain(user);
    // Codes printed without their host: domain_id says where they were printed.
    const file = [
      "long_url,slug",
      "https://example.com/first,same",
      "https://example.com/second,same",
      "https://example.com/menu,menu",
      "https://example.com/menu,menu",
      "https://example.com/shared,",
      "https://example.com/shared,",
      ...Array.from({ length: 20 }, (_, index) => `https://example.com/filler/${index},pad${"ABCDEFGHJKMNPQRSTUVW"[index]}`),
    ].join("\n");
    const done = await importFinished(user, (await startImport(user, file, "text/csv", `?domain_id=${domain.id}`)).body.id);
    expect(done).toMatchObject({ status: "done", total: 26, created: 23, kept: 0, merged: 2, failed: 1 });
    expect(done.errors).toEqual([
      {
        row: 3,
        error: expect.stringContaining('Row 2 of this file already imported the code "same" with another destination'),
        subject: "same",
      },
    ]);
    const links = await db().link.findMany({
      where: { workspaceId: user.workspaceId },
      select: { id: true, destination: true, slug: true, host: true },
    });
    expect(links.find((link) => link.slug === "same")).toMatchObject({
      destination: "https://example.com/first",
      host: domain.hostname,
    });
    expect(links.find((link) => link.slug === "menu")?.destination).toBe("https://example.com/menu");
    const shared = links.filter((link) => link.destination === "https://example.com/shared");
    expect(shared).toHaveLength(1);
    const report = (await call("GET", `/api/imports/${done.id}/entries?outcome=merged`, { token: user.token })).body;
    expect(report.entries).toEqual([
      expect.objectContaining({ row: 5, code: "menu", outcome: "merged", merged_into_row: 4 }),
      expect.objectContaining({ row: 7, code: null, outcome: "merged", merged_into_row: 6, link_id: shared[0]!.id }),
    ]);
  });

  it("lists the workspace's imports", async () => {
    const user = await newUser();
    const started = await startImport(user, fixture("dub.csv"), "text/csv", "?dry_run=1");
    const list = await call("GET", "/api/imports", { token: user.token });
    expect(list.body.imports.map((item: { id: string }) => item.id)).toEqual([started.body.id]);
  });
});

/**
 * Runs `work` while another caller lists links every 100 ms, and measures how long the event loop
 * was ever held meanwhile: a liveness bound (no request waits behind an upload), not a speed test.
 */
async function whileListing<T>(user: TestUser, work: () => Promise<T>, boundMs = 1000) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let working = true;
  const listings: number[] = [];
  const lister = (async () => {
    while (working) {
      listings.push((await call("GET", "/api/links", { token: user.token })).status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    return { result: await work(), listings };
  } finally {
    working = false;
    await lister;
    delay.disable();
    // The bound the issue names: another request answers within a second.
    expect(delay.max / 1e6, "the event loop was held (ms)").toBeLessThan(boundMs);
  }
}

describe("no upload can stall the API", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    resetConfig();
    resetSafetyChecker();
  });

  it.each([
    ["200,000 columns × 40 rows (9.5 MB)", () => wideCsv(200_000, 40), /header is longer than 65,536 characters/],
    ["100,000 columns × 20 rows (2.7 MB)", () => wideCsv(100_000, 20), /header is longer than 65,536 characters/],
    [
      "30,000 empty columns a row",
      () => `url\n${"https://example.com/a,".padEnd(30_000, ",")}\n`,
      /Row 2 of the CSV file has [\d,]+ columns; an export of links has at most 200/,
    ],
    ["201 columns", () => wideCsv(201, 3), /header has 201 columns; an export of links has at most 200/],
  ])(
    "refuses a CSV of %s with a sentence while GET /api/links keeps answering",
    async (_shape, file, sentence) => {
      const user = await newUser();
      const { result, listings } = await whileListing(user, () => startImport(user, file(), "text/csv", "?dry_run=1"));
      expect([result.status, result.body.error]).toEqual([400, expect.stringMatching(sentence)]);
      expect(listings.length).toBeGreaterThan(0);
      expect(listings.every((status) => status === 200)).toBe(true);
      expect(await db().import.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
    },
    120_000,
  );

  it("reads three 17 MB files of 100,000 rows at once: 202 or 429 with Retry-After, never 500, and GET /api/links keeps answering", async () => {
    const users = await Promise.all([newUser(), newUser(), newUser()]);
    // A thousand pages, so the jobs that follow are short: reading the file is what held the API.
    const file = largeCsv(100_000, { destinations: 1_000 });
    expect(file.length).toBeGreaterThan(17_000_000);
    const { result: answers, listings } = await whileListing(
      users[0]!,
      async () => {
        const answers = await Promise.all(users.map((user) => startImport(user, file, "text/csv", "?dry_run=1")));
        for (const [index, answer] of answers.entries())
          if (answer.status === 202) await importFinished(users[index]!, answer.body.id);
        return answers;
        // Three 17 MB files in memory at once: room for the collector's pauses over them (the
        // parse itself yields every 64 KiB). Read in one piece, they held the loop for 8.6 s.
      },
      2000,
    );
    const statuses = answers.map((answer) => answer.status);
    expect(
      statuses.every((status) => status === 202 || status === 429),
      String(statuses),
    ).toBe(true);
    expect(statuses).toContain(202);
    for (const answer of answers.filter((answer) => answer.status === 429)) {
      expect(answer.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(answer.body.error).toMatch(/reading other import files/);
    }
    expect(listings.every((status) => status === 200)).toBe(true);
  }, 600_000);

  it.each(["tags", "title", "url"] as const)(
    "refuses JSON nested 5,000 deep in %s with a sentence, over HTTP and MCP start_import",
    async (field) => {
      const user = await newUser();
      const file = deepJson(field, 5_000);
      const overHttp = await startImport(user, file, "application/json");
      expect([overHttp.status, overHttp.body.error]).toEqual([
        400,
        expect.stringMatching(/nests lists and objects more than 16 deep/),
      ]);
      const client = await connectMcp(APP_ORIGIN, {
        token: user.token,
        fetch: (input, init) => dispatch(new Request(input, init)),
      });
      const overMcp = await client.callTool({ name: "start_import", arguments: { file, file_type: "json" } });
      expect(overMcp.isError).toBe(true);
      expect(JSON.stringify(overMcp.content)).toMatch(/nests lists and objects more than 16 deep/);
      await client.close();
      expect(await db().import.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
    },
  );

  it("runs each row once while the import is followed: the lease outlives a slow batch, and the report counts what happened", async () => {
    const user = await newUser();
    const domain = await verifiedDomain(user);
    // One destination for every row: the rows of a batch go one after another, so a batch outlasts the lease.
    const rows = Array.from({ length: 120 }, (_, index) => ({
      row: index + 2,
      destination: "https://example.com/followed",
      shortLink: `${domain.hostname}/followed-${index}`,
      title: null,
      tags: [],
    }));
    const id = await storedImport(user, rows, { status: "queued" });
    let running = true;
    const job = runImport(id, 300).finally(() => (running = false));
    // Following it as the docs say: each read resumes imports whose lease has run out.
    while (running) {
      expect((await call("GET", `/api/imports/${id}`, { token: user.token })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await job;
    expect(await importFinished(user, id)).toMatchObject({
      status: "done",
      processed: 120,
      created: 120,
      skipped: 0,
      failed: 0,
      errors: [],
    });
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(120);
  }, 120_000);

  it("checks a dry run's rows without looking their names up; the real run looks them up", async () => {
    const dns = await startFakeDnsServer({}, { a: ["93.184.215.14"] });
    try {
      vi.stubEnv("DNS_RESOLVER", dns.resolver);
      resetConfig();
      resetSafetyChecker();
      const user = await newUser();
      const names = Array.from({ length: 40 }, (_, index) => `row-${index}.dry-run-lookups.com`);
      const file = `url\n${names.map((name) => `https://${name}/page`).join("\n")}\n`;
      const dry = await importFinished(user, (await startImport(user, file, "text/csv", "?dry_run=1")).body.id);
      expect(dry).toMatchObject({ status: "done", created: 40, failed: 0 });
      expect(names.map((name) => dns.queriesFor(name))).toEqual(names.map(() => 0));
      await importFinished(user, (await startImport(user, file, "text/csv")).body.id);
      expect(names.every((name) => dns.queriesFor(name) > 0)).toBe(true);
    } finally {
      await dns.close();
    }
  });

  it("allows two imports under way per workspace, and per person across their workspaces, then 429 with Retry-After", async () => {
    const owner = await newUser();
    const person = await newUser();
    const inTeam = await joinWorkspace(person, owner.workspaceId, "admin");
    const underWay = (workspaceId: string, userId: string | null) =>
      db().import.create({
        data: {
          id: newId("imp"),
          workspaceId,
          userId,
          format: "generic",
          dryRun: true,
          status: "running",
          total: 1,
          source: "[]",
          leaseUntil: new Date(Date.now() + 600_000),
        },
      });
    const file = "url\nhttps://example.com/limit\n";
    const startIn = (options: { token: string; headers?: Record<string, string> }) =>
      call("POST", "/api/imports?dry_run=1", {
        ...options,
        rawBody: file,
        headers: { ...options.headers, "content-type": "text/csv" },
      });

    await underWay(person.workspaceId, person.userId);
    await underWay(person.workspaceId, person.userId);
    const elsewhere = await startIn(inTeam);
    expect([elsewhere.status, elsewhere.body.error]).toEqual([
      429,
      expect.stringMatching(/You already have 2 imports under way/),
    ]);
    expect(elsewhere.headers.get("retry-after")).toMatch(/^\d+$/);

    await underWay(owner.workspaceId, null);
    expect((await startIn(owner)).status).toBe(202);
    await underWay(owner.workspaceId, null);
    await underWay(owner.workspaceId, null);
    const third = await startIn(owner);
    expect([third.status, third.body.error]).toEqual([
      429,
      expect.stringMatching(/This workspace already has 2 imports under way/),
    ]);
  });
});

describe("each source's own fields", () => {
  type Expected = {
    destination: string;
    onDomain?: string;
    importedFrom?: string;
    title?: string | null;
    tags?: string[];
    /** The source's password: the link asks for it, and takes it. */
    password?: string;
  };
  it.each<[string, string, string, Expected[]]>([
    [
      "dub-api.json",
      "application/json",
      "dub",
      [
        {
          destination: "https://example.com/dub-api/spring",
          onDomain: "spring-menu",
          title: "Spring menu",
          tags: ["menus", "print"],
          password: "staff-only",
        },
        { destination: "https://example.com/dub-api/poster", importedFrom: "dub.sh/aB3xY9" },
      ],
    ],
    [
      "dub-export.csv",
      "text/csv",
      "dub",
      [
        { destination: "https://example.com/dub-export/summer", onDomain: "summer", title: "Summer", tags: ["launch"] },
        { destination: "https://example.com/dub-export/winter", importedFrom: "dub.sh/xK29pQ" },
      ],
    ],
    [
      "shlink-rest.json",
      "application/json",
      "shlink",
      [
        { destination: "https://example.com/shlink-rest/flyer", onDomain: "flyer", title: "Flyer", tags: ["print"] },
        { destination: "https://example.com/shlink-rest/other", importedFrom: "s.shlink.example/k3Yt8", title: null },
      ],
    ],
    [
      "rebrandly-api.json",
      "application/json",
      "rebrandly",
      [
        {
          destination: "https://example.com/rebrandly-api/flyer",
          onDomain: "flyer-rb",
          title: "Rebrandly flyer",
          tags: ["print"],
        },
      ],
    ],
    [
      "kutt-v2.json",
      "application/json",
      "kutt",
      [
        { destination: "https://example.com/kutt-v2/flyer", onDomain: "kt-flyer", title: "Kutt flyer" },
        // Kutt writes domain null for its default host, kutt.it.
        { destination: "https://example.com/kutt-v2/default", importedFrom: "kutt.it/kt-default" },
      ],
    ],
  ])(
    "reads %s by its source's fields: printed codes on their own host, the others naming their origin",
    async (name, type, format, expected) => {
      const user = await newUser();
      const domain = await verifiedDomain(user);
      const file = fixture(name).toString("utf8").replaceAll("go.DOMAIN", domain.hostname);
      const done = await importFinished(user, (await startImport(user, file, type)).body.id);
      expect(done).toMatchObject({ status: "done", total: expected.length, created: expected.length, failed: 0 });
      for (const row of expected) {
        const link = await db().link.findFirstOrThrow({ where: { workspaceId: user.workspaceId, destination: row.destination } });
        const view = (await call("GET", `/api/links/${link.id}`, { token: user.token })).body;
        if (row.onDomain) {
          expect([link.host, link.slug]).toEqual([domain.hostname, row.onDomain]);
          const answer = await visit(`/${row.onDomain}`, {
            host: domain.hostname,
            headers: row.password ? { "Link-Password": row.password } : {},
          });
          expect([answer.status, answer.headers.Location]).toEqual([302, row.destination]);
          if (row.password) expect((await visit(`/${row.onDomain}`, { host: domain.hostname })).status).toBe(401);
        } else {
          expect([link.host, link.importedFrom]).toEqual([null, row.importedFrom]);
        }
        if (row.title !== undefined) expect(view.title).toBe(row.title);
        if (row.tags) expect(view.tags).toEqual(row.tags);
        expect(view.password_protected).toBe(row.password !== undefined);
      }
      const again = await importFinished(user, (await startImport(user, file, type, `?format=${format}`)).body.id);
      expect(again).toMatchObject({ status: "done", created: 0, skipped: expected.length, failed: 0 });
      expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(expected.length);
    },
  );
});

describe("POST /api/imports/{id}/cancel", () => {
  it("stops a running import after the batch it is writing, keeps the report of what was done, and a second cancel is a conflict", async () => {
    const user = await newUser();
    const rows = plainRows(400, "cancelled");
    const id = await storedImport(user, rows, { status: "queued" });
    const job = runImport(id);
    await vi.waitFor(async () => expect((await db().import.findUniqueOrThrow({ where: { id } })).status).toBe("running"));
    const cancelled = await call("POST", `/api/imports/${id}/cancel`, { token: user.token });
    // Its job holds it: cancelling until the batch it is writing is saved.
    expect([cancelled.status, cancelled.body.status]).toEqual([200, "cancelling"]);
    await job;
    const report = (await call("GET", `/api/imports/${id}`, { token: user.token })).body;
    expect(report).toMatchObject({ status: "cancelled", failed: 0 });
    expect(report.processed).toBeLessThan(400);
    expect(report.created).toBe(report.processed);
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(report.created);
    const again = await call("POST", `/api/imports/${id}/cancel`, { token: user.token });
    expect([again.status, again.body.error]).toEqual([409, expect.stringMatching(/already finished \(cancelled\)/)]);
  });
});
