import { db, transaction, withSavepoint } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { DomainError } from "@/lib/http/errors";
import { commitLink, type LinkDraft } from "@/lib/links/commit";
import type { Invalidation } from "@/lib/links/invalidation";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { heardInvalidations } from "../support/invalidations";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FULFILMENT_LIKE = { maxWait: 10_000, timeout: 15_000 };

const invalidations = heardInvalidations();

async function newWorkspace(): Promise<string> {
  const id = newId("ws");
  await db().workspace.create({ data: { id, name: "commit test", kind: "machine" } });
  return id;
}

function draft(workspaceId: string, overrides: Partial<LinkDraft> = {}): LinkDraft {
  return {
    workspaceId,
    host: null,
    domainId: null,
    destination: `https://example.com/commit/${randomString(SLUG_ALPHABET, 8)}`,
    by: { kind: "machine_payment", payerDid: "did:pkh:eip155:1:0x0000000000000000000000000000000000000001" },
    slug: null,
    title: null,
    passwordHash: null,
    scanLimit: null,
    tagNames: [],
    importedFrom: null,
    slugPolicy: "fail_when_taken",
    reuse: false,
    ...overrides,
  };
}

const uncapped = (workspaceId: string) => ({ entitlement: { workspaceId, limit: null } });

describe("commitLink, the one way a link is written", () => {
  it("is the only code that inserts a link or allocates a slug (the account and paid paths cannot drift)", async () => {
    const writers: string[] = [];
    for (const file of await sourceFiles(["lib", "app"])) {
      const text = await readFile(file, "utf8");
      if (/\binsertLink\b|\ballocateSlug\b/.test(text)) writers.push(path.relative(ROOT, file));
    }
    expect(writers.sort()).toEqual(["lib/links/commit.ts", "lib/links/slugs.ts", "lib/links/store.ts"]);
    for (const caller of ["lib/links/service.ts", "lib/payments/fulfilment.ts"]) {
      expect(await readFile(path.join(ROOT, caller), "utf8")).toMatch(/\bcommitLink\(/);
    }
  });

  it("refuses a taken custom slug with 409 under fail_when_taken, and writes nothing", async () => {
    const workspaceId = await newWorkspace();
    const slug = `taken-${randomString(SLUG_ALPHABET, 6)}`;
    await commitLink(draft(workspaceId, { slug }), uncapped(workspaceId));
    invalidations.heard = [];
    await expect(commitLink(draft(workspaceId, { slug }), uncapped(workspaceId))).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringContaining(slug),
    });
    expect(await db().link.count({ where: { workspaceId } })).toBe(1);
    expect(invalidations.heard).toEqual([]);
  });

  it("gives an allocated slug under fall_back_to_allocated, and says the slug fell back", async () => {
    const workspaceId = await newWorkspace();
    const slug = `contested-${randomString(SLUG_ALPHABET, 6)}`;
    await commitLink(draft(workspaceId, { slug }), uncapped(workspaceId));
    const committed = await commitLink(draft(workspaceId, { slug, slugPolicy: "fall_back_to_allocated" }), uncapped(workspaceId));
    expect(committed).toMatchObject({ created: true, slugFellBack: true });
    expect(committed.link.slug).toMatch(new RegExp(`^[${SLUG_ALPHABET}]{7}$`));
    expect(committed.link.slug).not.toBe(slug);
  });

  it("returns the workspace's live link to the same destination when reuse is asked, and a new one when not", async () => {
    const workspaceId = await newWorkspace();
    const first = await commitLink(
      draft(workspaceId, { destination: "https://example.com/same", reuse: true }),
      uncapped(workspaceId),
    );
    const again = await commitLink(
      draft(workspaceId, { destination: "https://example.com/same", reuse: true }),
      uncapped(workspaceId),
    );
    const fresh = await commitLink(
      draft(workspaceId, { destination: "https://example.com/same", reuse: false }),
      uncapped(workspaceId),
    );
    expect(again).toEqual({ link: first.link, created: false, slugFellBack: false });
    expect(fresh.created).toBe(true);
    expect(fresh.link.id).not.toBe(first.link.id);
  });

  it("announces a link committed on its own at once", async () => {
    const workspaceId = await newWorkspace();
    const { link } = await commitLink(draft(workspaceId), uncapped(workspaceId));
    expect(invalidations.heard).toEqual([{ kind: "link", host: null, slug: link.slug }]);
  });

  it("announces a link written inside a transaction only once the transaction has committed", async () => {
    const workspaceId = await newWorkspace();
    let heardBeforeCommit: Invalidation[] | undefined;
    const link = await transaction(async (client) => {
      const committed = await commitLink(draft(workspaceId, { slug: `tx-${randomString(SLUG_ALPHABET, 6)}` }), { client });
      heardBeforeCommit = [...invalidations.heard];
      return committed.link;
    }, FULFILMENT_LIKE);
    expect(heardBeforeCommit).toEqual([]);
    expect(invalidations.heard).toEqual([{ kind: "link", host: null, slug: link.slug }]);
  });

  it("announces nothing, and leaves no link, when the transaction rolls back", async () => {
    const workspaceId = await newWorkspace();
    const rolledBack = transaction(async (client) => {
      await commitLink(draft(workspaceId), { client });
      throw new Error("a later write of the same transaction failed");
    }, FULFILMENT_LIKE);
    await expect(rolledBack).rejects.toThrow(/later write/);
    expect(invalidations.heard).toEqual([]);
    expect(await db().link.count({ where: { workspaceId } })).toBe(0);
  });
});

async function sourceFiles(folders: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const folder of folders) {
    for (const entry of await readdir(path.join(ROOT, folder), { recursive: true, withFileTypes: true })) {
      const name = path.join(entry.parentPath, entry.name);
      if (
        entry.isFile() &&
        /\.tsx?$/.test(entry.name) &&
        !/\.test\.tsx?$/.test(entry.name) &&
        !name.includes(`${path.sep}generated${path.sep}`)
      )
        files.push(name);
    }
  }
  return files;
}

describe("withSavepoint, how a batch takes back one refused link (commitLinks)", () => {
  it("takes back only the writes of the work that threw, and the transaction commits the rest", async () => {
    const workspaceId = await newWorkspace();
    const [kept, refused, after] = [draft(workspaceId), draft(workspaceId), draft(workspaceId)];
    const refusal = new DomainError("conflict", "refused after its link was written");
    await transaction(async (tx) => {
      await commitLink(kept, { client: tx });
      const thrown = await withSavepoint(tx, async () => {
        await commitLink(refused, { client: tx });
        throw refusal;
      }).catch((error: unknown) => error);
      expect(thrown).toBe(refusal);
      await commitLink(after, { client: tx });
    }, FULFILMENT_LIKE);
    const links = await db().link.findMany({ where: { workspaceId }, select: { id: true, destination: true } });
    expect(links.map((link) => link.destination).toSorted()).toEqual([kept.destination, after.destination].toSorted());
    expect(await db().linkHistory.count({ where: { workspaceId } })).toBe(2);
  });
});
