import { requireCreateEntitlement } from "@/lib/billing/entitlement";
import { clock } from "@/lib/clock";
import { db, transaction } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { DomainError } from "@/lib/http/errors";
import type { CommittedLink } from "@/lib/links/commit";
import { createImportedLinks, type ImportedLink, prepareLink } from "@/lib/links/service";
import * as linkStore from "@/lib/links/store";
import type { Principal } from "@/lib/workspaces/types";
import { describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { importFinished } from "../support/import-entries";

/**
 * An import writes a batch of rows in one transaction (lib/links/commit.ts, commitLinks), and each
 * row still ends as it would have alone: a refusal is that row's, the others are written with their
 * history; a failure of the batch leaves none of it; a capped plan's rows go one by one.
 */
const owner = (user: TestUser): Principal => ({
  kind: "session",
  userId: user.userId,
  workspaceId: user.workspaceId,
  role: "owner",
});

async function verifiedDomain(user: TestUser): Promise<{ id: string; hostname: string }> {
  const hostname = `go-${randomString("abcdefghijkmnpqrstuvwxyz", 8)}.import-batch.com`;
  const id = newId("dom");
  await db().domain.create({ data: { id, workspaceId: user.workspaceId, hostname, verifiedAt: new Date(clock().now()) } });
  return { id, hostname };
}

async function importedLink(
  user: TestUser,
  destination: string,
  code?: { slug: string; domain: { id: string; hostname: string } },
): Promise<ImportedLink> {
  const prepared = await prepareLink(
    user.workspaceId,
    { destination, ...(code && { slug: code.slug, domain_id: code.domain.id }) },
    code ? { verifiedDomain: code.domain } : {},
  );
  const importedFrom = code ? `${code.domain.hostname}/${code.slug}` : null;
  return { prepared, origin: { importedFrom, createdAt: null, archived: false } };
}

const committed = (result: CommittedLink | DomainError | undefined): CommittedLink => {
  if (!result || result instanceof DomainError) throw new Error(`expected a link, got ${String(result)}`);
  return result;
};

describe("an import's batch, written together", () => {
  it("gives each row its own end: a slug taken since the batch's read is that row's refusal, the others are written", async () => {
    const user = await newUser();
    const other = await newUser();
    const domain = await verifiedDomain(user);
    const links = [
      await importedLink(user, "https://example.com/batch/first", { slug: "first", domain }),
      await importedLink(user, "https://example.com/batch/taken", { slug: "taken", domain }),
      await importedLink(user, "https://example.com/batch/plain"),
      await importedLink(user, "https://example.com/batch/existing"),
      await importedLink(user, "https://example.com/batch/twice"),
      await importedLink(user, "https://example.com/batch/twice"),
    ];
    // Taken after the import read the domain's codes: another workspace's link on the same host and slug.
    await db().link.create({
      data: {
        id: newId("lnk"),
        workspaceId: other.workspaceId,
        host: domain.hostname,
        slug: "taken",
        destination: "https://example.com/someone-else",
        reusable: false,
        status: 1,
      },
    });
    const existing = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/batch/existing" },
    });
    expect(existing.status).toBe(201);

    const results = await createImportedLinks(owner(user), links, await requireCreateEntitlement(user.workspaceId));

    expect(committed(results[0]).link).toMatchObject({ host: domain.hostname, slug: "first" });
    expect(results[1]).toBeInstanceOf(DomainError);
    expect((results[1] as DomainError).message).toMatch(/The slug "taken" is already taken/);
    expect(committed(results[2])).toMatchObject({
      created: true,
      link: { host: null, destination: "https://example.com/batch/plain" },
    });
    // The workspace's own link to a destination is handed back, as a single create would.
    expect(committed(results[3])).toMatchObject({ created: false, link: { id: existing.body.id } });
    // Two rows to one destination in one batch: one link, the second row given the first's.
    expect(committed(results[4]).created).toBe(true);
    expect(committed(results[5])).toMatchObject({ created: false, link: { id: committed(results[4]).link.id } });

    const madeIds = [0, 2, 4].map((index) => committed(results[index]).link.id);
    const history = await db().linkHistory.findMany({
      where: { linkId: { in: madeIds } },
      select: { linkId: true, change: true },
    });
    expect(history.map((row) => `${row.linkId} ${row.change}`).toSorted()).toEqual(
      madeIds.map((linkId) => `${linkId} created`).toSorted(),
    );
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(4);
  });

  it("leaves nothing of a batch whose write fails", async () => {
    const user = await newUser();
    const fine = await importedLink(user, "https://example.com/batch/rolled-back");
    // A row no unique index refuses but the database does: the domain it names does not exist.
    const other = await importedLink(user, "https://example.com/batch/broken");
    const broken = { ...other, prepared: { ...other.prepared, slug: "broken", host: "gone.example", domainId: newId("dom") } };
    await expect(
      createImportedLinks(owner(user), [fine, broken], await requireCreateEntitlement(user.workspaceId)),
    ).rejects.toThrow();
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
    expect(await db().linkHistory.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
  });

  it("writes a capped plan's rows one by one: those the allowance has room for are created, the rest fail with its sentence", async () => {
    const user = await newUser("import-starter", { subscription: { plan: "starter", interval: "month" } });
    const file = `url\n${Array.from({ length: 103 }, (_, index) => `https://example.com/capped/${index}`).join("\n")}\n`;
    const started = await call("POST", "/api/imports?format=generic", {
      token: user.token,
      rawBody: file,
      headers: { "content-type": "text/csv" },
    });
    expect(started.status).toBe(202);
    const report = await importFinished(user, started.body.id);
    expect(report).toMatchObject({ status: "done", total: 103, created: 100, failed: 3 });
    expect(report.errors.map((error: { row: number }) => error.row)).toEqual([102, 103, 104]);
    expect(report.errors[0].error).toMatch(/created all 100 new links its plan allows/);
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(100);
  }, 60_000);

  it("writes in file order around a row that waits on an earlier one that failed", async () => {
    const user = await newUser();
    const domain = await verifiedDomain(user);
    // Row 2 fails (its password is too short); row 3 repeats its destination, so it waits for it; row 4
    // is the same destination once normalised. Rows 5 and 6 print one code (row 5 has no usable
    // destination); row 7 prints it percent-escaped: the same slug.
    const file =
      "url,password,short_link\n" +
      "https://example.com/order/same,ab,\n" +
      "https://example.com/order/same,,\n" +
      "https://EXAMPLE.com/order/same,,\n" +
      `ftp://example.com/nope,,https://${domain.hostname}/abc\n` +
      `https://example.com/order/six,,https://${domain.hostname}/abc\n` +
      `https://example.com/order/eight,,https://${domain.hostname}/%61bc\n`;
    const started = await call("POST", "/api/imports?format=generic", {
      token: user.token,
      rawBody: file,
      headers: { "content-type": "text/csv" },
    });
    const report = await importFinished(user, started.body.id);
    const entries = await db().importEntry.findMany({
      where: { importId: report.id },
      orderBy: { entry: "asc" },
      select: { row: true, outcome: true, mergedInto: true },
    });
    // One after another: row 3 makes the link and row 4 shares it; row 6 takes "abc", which row 7 finds taken.
    expect(entries.map((entry) => `${entry.row} ${entry.outcome}${entry.mergedInto ? ` into ${entry.mergedInto}` : ""}`)).toEqual(
      ["2 failed", "3 created", "4 merged into 3", "5 failed", "6 created", "7 failed"],
    );
  });

  it("runs a batch again that met another batch of the workspace in the opposite order", async () => {
    const user = await newUser();
    const [x, y] = ["https://example.com/batch/deadlock-x", "https://example.com/batch/deadlock-y"];
    const links = [await importedLink(user, x), await importedLink(user, y)];
    const row = (destination: string) => ({
      id: newId("lnk"),
      workspaceId: user.workspaceId,
      slug: randomString("abcdefghijkmnpqrstuvwxyz23456789", 10),
      reusable: true,
      host: null,
      domainId: null,
      destination,
      createdByUserId: user.userId,
    });
    // Another batch of the workspace (its file lists y before x) holds y; ours writes x and waits for y; the other then reaches x.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const other = transaction(
      async (tx) => {
        await linkStore.insertLinks([row(y)], tx);
        holding();
        await gate;
        await linkStore.insertLinks([row(x)], tx);
      },
      { timeout: 30_000 },
    );
    await held;
    const ours = createImportedLinks(owner(user), links, await requireCreateEntitlement(user.workspaceId));
    await new Promise((resolve) => setTimeout(resolve, 400));
    release();
    const [, results] = await Promise.allSettled([other, ours]);
    // PostgreSQL aborted one of the two; ours, run again if it was the one, hands out the workspace's one link to each destination.
    expect(results.status).toBe("fulfilled");
    const made = await db().link.findMany({ where: { workspaceId: user.workspaceId }, select: { id: true, destination: true } });
    expect(made.map((link) => link.destination).toSorted()).toEqual([x, y]);
    const handedOut = (results as PromiseFulfilledResult<(CommittedLink | DomainError)[]>).value.map(
      (result) => committed(result).link.id,
    );
    expect(handedOut.toSorted()).toEqual(made.map((link) => link.id).toSorted());
  }, 30_000);
});
