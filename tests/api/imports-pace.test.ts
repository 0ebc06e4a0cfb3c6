import { clock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { resetWriteLimiter } from "@/lib/http/write-limit";
import { runImport } from "@/lib/imports/job";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, newUser, type TestUser } from "../support/api";

/**
 * An import's pace and control. Its links come from a budget of their own, so
 * the workspace keeps creating links meanwhile; a cancel stops it between batches, with the
 * report of what was done; a batch of rows is written together, in a few statements.
 */
afterEach(async () => {
  vi.unstubAllEnvs();
  resetConfig();
  await resetWriteLimiter();
});

async function budgets(settings: { WRITE_RATE_LIMIT_PER_MINUTE?: string; IMPORT_WRITES_PER_MINUTE?: string }) {
  for (const [name, value] of Object.entries(settings)) vi.stubEnv(name, value);
  resetConfig();
  await resetWriteLimiter();
}

const importOf = async (user: TestUser, id: string) => (await call("GET", `/api/imports/${id}`, { token: user.token })).body;

async function settled(user: TestUser, id: string, statuses: string[], attempts = 2400) {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const job = await importOf(user, id);
    if (statuses.includes(job.status)) return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`import ${id} never reached ${statuses.join(" or ")}`);
}

function csvOf(count: number, path: string): string {
  return `url,title\n${Array.from({ length: count }, (_, index) => `https://example.com/${path}/${index},Row ${index}`).join("\n")}\n`;
}

const startImport = (user: TestUser, file: string) =>
  call("POST", "/api/imports?format=generic", { token: user.token, rawBody: file, headers: { "content-type": "text/csv" } });

const createLink = (user: TestUser, destination: string) =>
  call("POST", "/api/links", { token: user.token, body: { destination } });

const importedLinks = (user: TestUser, path: string) =>
  db().link.count({ where: { workspaceId: user.workspaceId, destination: { startsWith: `https://example.com/${path}/` } } });

async function verifiedDomain(user: TestUser): Promise<string> {
  const hostname = `go-${randomString("abcdefghijkmnpqrstuvwxyz", 8)}.import-pace.com`;
  await db().domain.create({
    data: { id: newId("dom"), workspaceId: user.workspaceId, hostname, verifiedAt: new Date(clock().now()) },
  });
  return hostname;
}

/** Every statement the process's pg clients send while `work` runs. */
async function statementsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const statements: string[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined;
    statements.push(typeof first === "string" ? first : (first?.text ?? ""));
    return (original as (...passed: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = original;
  }
  return statements;
}

describe("an import's own budget (IMPORT_WRITES_PER_MINUTE)", () => {
  it("paces the job on it, never on the workspace's: POST /api/links succeeds meanwhile; a cancel waits for the batch under way", async () => {
    const user = await newUser();
    // The workspace's write budget: the import's request takes one, two links and the cancel the rest.
    await budgets({ WRITE_RATE_LIMIT_PER_MINUTE: "4", IMPORT_WRITES_PER_MINUTE: "30" });
    const started = await startImport(user, csvOf(60, "paced"));
    expect(started.status).toBe(202);
    const id = started.body.id;
    // The first batch of 50 is written at once when the budget has room for all of it: 30 now, 20 a minute later.
    const seen = new Set<number>();
    const watching = (async () => {
      for (let count = 0; count < 50; await new Promise((resolve) => setTimeout(resolve, 100)))
        seen.add((count = await importedLinks(user, "paced")));
    })();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await importedLinks(user, "paced")).toBe(0);
    expect(await importOf(user, id)).toMatchObject({ status: "running", processed: 0 });

    // The workspace keeps creating links while the import waits on its own budget.
    const during = [
      await createLink(user, "https://example.com/during/1"),
      await createLink(user, "https://example.com/during/2"),
    ];
    expect(during.map((answer) => answer.status)).toEqual([201, 201]);
    expect((await importOf(user, id)).status).toBe("running");

    // Cancelled while the batch is under way: cancelling until that batch is saved, then cancelled.
    const cancelled = await call("POST", `/api/imports/${id}/cancel`, { token: user.token });
    expect([cancelled.status, cancelled.body.status, cancelled.body.processed]).toEqual([200, "cancelling", 0]);
    // The workspace's budget is in force: those four writes were its four.
    const over = await createLink(user, "https://example.com/during/3");
    expect([over.status, over.body.error]).toEqual([
      429,
      expect.stringMatching(/Too many writes this minute for this workspace/),
    ]);
    expect((await call("GET", "/api/imports", { token: user.token })).body.imports[0]).toMatchObject({
      id,
      status: "cancelling",
    });
    const report = await settled(user, id, ["cancelled", "done", "failed"]);
    expect(report).toMatchObject({ status: "cancelled", total: 60, processed: 50, created: 50, failed: 0 });
    expect(report.finished_at).toBeGreaterThan(report.created_at + 50_000);
    await watching;
    expect([...seen], "the batch's links appear together, never some of them").toEqual([0, 50]);
    expect(await importedLinks(user, "paced")).toBe(50);
    const entries = (await call("GET", `/api/imports/${id}/entries`, { token: user.token })).body.entries;
    expect(entries).toHaveLength(50);
    expect(entries.every((entry: { outcome: string; link_id: string }) => entry.outcome === "created" && entry.link_id)).toBe(
      true,
    );
  }, 120_000);

  it("imports every row with the workspace's write budget spent", async () => {
    const user = await newUser();
    await budgets({ WRITE_RATE_LIMIT_PER_MINUTE: "1" });
    const started = await startImport(user, csvOf(120, "unbudgeted"));
    expect(started.status).toBe(202);
    expect((await createLink(user, "https://example.com/after")).status).toBe(429);
    expect(await settled(user, started.body.id, ["done", "failed", "cancelled"])).toMatchObject({
      status: "done",
      created: 120,
      failed: 0,
    });
  }, 60_000);
});

describe("POST /api/imports/{id}/cancel, no job holding the import", () => {
  it("cancels a queued import at once, and one whose job a restart interrupted while cancelling is cancelled when next read", async () => {
    const user = await newUser();
    const queued = newId("imp");
    const base = { workspaceId: user.workspaceId, userId: user.userId, format: "generic", dryRun: false, total: 1 };
    await db().import.create({ data: { id: queued, ...base, status: "queued", source: "[]" } });
    const answer = await call("POST", `/api/imports/${queued}/cancel`, { token: user.token });
    expect([answer.status, answer.body.status]).toEqual([200, "cancelled"]);
    await runImport(queued);
    expect(await importOf(user, queued)).toMatchObject({ status: "cancelled", processed: 0 });

    const interrupted = newId("imp");
    await db().import.create({
      data: { id: interrupted, ...base, status: "cancelling", leaseToken: "gone", leaseUntil: new Date(Date.now() - 1000) },
    });
    expect(await importOf(user, interrupted)).toMatchObject({ status: "cancelling" });
    await settled(user, interrupted, ["cancelled"], 20);
  });
});

describe("a batch's cost", () => {
  it("is a few statements whatever its rows: the lookups, the subscription and the links' writes go a batch at a time", async () => {
    const user = await newUser();
    const hostname = await verifiedDomain(user);
    const rows = Array.from({ length: 200 }, (_, index) => ({
      row: index + 2,
      destination: `https://example.com/cost/${index}`,
      shortLink: index % 2 === 0 ? `https://${hostname}/cost-${index}` : null,
      title: `Row ${index}`,
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
    const statements = await statementsDuring(() => runImport(id));
    expect(await importOf(user, id)).toMatchObject({ status: "done", created: 200, failed: 0 });
    // A batch of 50 in one transaction: BEGIN, the workspace's links to the destinations of the rows
    // without a code, the links, their history rows, their webhook messages, COMMIT; then its reads
    // and its save. The job adds its claim, its rows and its finish.
    const kinds = new Map<string, number>();
    for (const s of statements) kinds.set(s.trim().slice(0, 70), (kinds.get(s.trim().slice(0, 70)) ?? 0) + 1);
    expect(statements.length / (200 / 50), JSON.stringify([...kinds], null, 1)).toBeLessThanOrEqual(16);
    expect(statements.filter((statement) => /"billing_accounts"/.test(statement)).length).toBeLessThanOrEqual(200 / 50);
    expect(statements.filter((statement) => /FROM "public"\."domains"/.test(statement)).length).toBeLessThanOrEqual(2);
  }, 60_000);
});
