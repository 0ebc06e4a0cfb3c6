import { db } from "@/lib/db/client";
import pg from "pg";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";

/**
 * A tag renamed or deleted while another request attaches it to a link, on real PostgreSQL
 * connections: this file's own connection holds a lock on link_history, so the first request stops
 * just before its history row with everything else of its transaction done, and the second starts
 * while the first is still open; once both wait, the lock is let go.
 */
let holder: pg.Client;

beforeEach(async () => {
  holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await holder.connect();
});

afterEach(async () => {
  await holder.query("ROLLBACK").catch(() => undefined);
  await holder.end();
});

/** Holds back every history row until `release`: the transaction writing one waits, still open. */
async function holdHistory(): Promise<{ release(): Promise<void> }> {
  await holder.query("BEGIN");
  await holder.query("LOCK TABLE link_history IN SHARE MODE");
  return { release: async () => void (await holder.query("COMMIT")) };
}

/** Resolves once `count` other connections of this database wait for a lock. */
async function waitingForLocks(count: number): Promise<void> {
  const deadline = Date.now() + 4000;
  for (;;) {
    // Inside the holder's transaction the activity view is read once and kept, unless cleared.
    await holder.query("SELECT pg_stat_clear_snapshot()");
    const { rows } = await holder.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
    );
    if (rows[0]!.waiting >= count) return;
    if (Date.now() > deadline) throw new Error(`${rows[0]!.waiting} connections wait for a lock, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

type Entry = { change: string; before: { tags: string[] } | null; after: { tags: string[] } };

async function history(owner: TestUser, id: string): Promise<Entry[]> {
  const response = await call("GET", `/api/links/${id}/history`, { token: owner.token });
  expect(response.status, response.text).toBe(200);
  return response.body.entries;
}

let linksMade = 0;

async function make(owner: TestUser, tags: string[]): Promise<string> {
  const destination = `https://example.com/races/${++linksMade}`;
  const made = await call("POST", "/api/links", { token: owner.token, body: { destination, tags } });
  expect(made.status, made.text).toBe(201);
  return made.body.id;
}

async function tagId(owner: TestUser, name: string): Promise<string> {
  const tags = (await call("GET", "/api/tags", { token: owner.token })).body.tags as { id: string; name: string }[];
  return tags.find((tag) => tag.name === name)!.id;
}

/** Every link's newest history row shows the tags it carries: no change to its tags went unrecorded. */
async function expectEveryTagChangeRecorded(owner: TestUser, ids: string[]): Promise<void> {
  for (const id of ids) {
    const tags = (await call("GET", `/api/links/${id}`, { token: owner.token })).body.tags as string[];
    const [newest] = await history(owner, id);
    expect([id, newest!.after.tags]).toEqual([id, tags]);
  }
}

/** The link is given these tags, held open until `change` waits for it too; both answers once both are done. */
async function whileTagging(owner: TestUser, linkId: string, tags: string[], change: () => ReturnType<typeof call>) {
  const held = await holdHistory();
  const tagged = call("PATCH", `/api/links/${linkId}`, { token: owner.token, body: { tags } });
  await waitingForLocks(1);
  const changed = change();
  await waitingForLocks(2);
  await held.release();
  return Promise.all([tagged, changed]);
}

describe("a tag renamed or deleted while a link is being given it", () => {
  beforeAll(async () => {
    // Each route loads on its first call: done here, so no test's transactions stay open while one loads.
    const owner = await newUser("tag-race-warm-up");
    const id = await make(owner, ["warm"]);
    expect((await call("PATCH", `/api/links/${id}`, { token: owner.token, body: { tags: ["warm", "up"] } })).status).toBe(200);
    const warm = await tagId(owner, "warm");
    expect((await call("PATCH", `/api/tags/${warm}`, { token: owner.token, body: { name: "warmed" } })).status).toBe(200);
    expect((await call("DELETE", `/api/tags/${warm}`, { token: owner.token })).status).toBe(204);
    await history(owner, id);
  });

  it("waits for the link's tagging to commit, then records the rename on that link too", async () => {
    // Before the fix the rename read the links carrying the tag before the tagging committed: the
    // newly tagged link showed the new name with no history row saying so.
    const owner = await newUser("tag-race-rename");
    const carrying = await make(owner, ["draft"]);
    const tagging = await make(owner, []);
    const draft = await tagId(owner, "draft");

    const [taggedAnswer, renamedAnswer] = await whileTagging(owner, tagging, ["draft"], () =>
      call("PATCH", `/api/tags/${draft}`, { token: owner.token, body: { name: "final" } }),
    );
    expect([taggedAnswer.status, renamedAnswer.status], taggedAnswer.text + renamedAnswer.text).toEqual([200, 200]);

    expect((await call("GET", `/api/links/${tagging}`, { token: owner.token })).body.tags).toEqual(["final"]);
    await expectEveryTagChangeRecorded(owner, [carrying, tagging]);
    expect((await historyOf(owner, tagging)).slice(0, 2)).toEqual([
      ["edited", ["draft"], ["final"]],
      ["edited", [], ["draft"]],
    ]);
  });

  it("waits for the link's tagging to commit, then records the delete on that link too", async () => {
    const owner = await newUser("tag-race-delete");
    const carrying = await make(owner, ["draft"]);
    const tagging = await make(owner, ["kept"]);
    const draft = await tagId(owner, "draft");

    const [taggedAnswer, deletedAnswer] = await whileTagging(owner, tagging, ["kept", "draft"], () =>
      call("DELETE", `/api/tags/${draft}`, { token: owner.token }),
    );
    expect([taggedAnswer.status, deletedAnswer.status], taggedAnswer.text + deletedAnswer.text).toEqual([200, 204]);

    expect((await call("GET", `/api/links/${tagging}`, { token: owner.token })).body.tags).toEqual(["kept"]);
    await expectEveryTagChangeRecorded(owner, [carrying, tagging]);
    expect((await historyOf(owner, tagging)).slice(0, 2)).toEqual([
      ["edited", ["draft", "kept"], ["kept"]],
      ["edited", ["kept"], ["draft", "kept"]],
    ]);
  });

  it("never deadlocks with a second edit of the newly tagged link, which holds that link and waits for the tag", async () => {
    // Whichever of the rename and the second edit wakes first, neither waits for the other in a circle: the
    // rename takes a link tagged meanwhile only if no one holds it, else gives its locks back and starts again.
    const owner = await newUser("tag-race-second-edit");
    const carrying = await make(owner, ["draft"]);
    const tagging = await make(owner, []);
    const draft = await tagId(owner, "draft");

    const held = await holdHistory();
    const tagged = call("PATCH", `/api/links/${tagging}`, { token: owner.token, body: { tags: ["draft"] } });
    await waitingForLocks(1);
    const renamed = call("PATCH", `/api/tags/${draft}`, { token: owner.token, body: { name: "final" } });
    await waitingForLocks(2);
    const again = call("PATCH", `/api/links/${tagging}`, { token: owner.token, body: { tags: ["draft", "extra"] } });
    await waitingForLocks(3);
    await held.release();
    const answers = await Promise.all([tagged, renamed, again]);
    expect(
      answers.map((answer) => answer.status),
      answers.map((answer) => answer.text).join(" "),
    ).toEqual([200, 200, 200]);
    await expectEveryTagChangeRecorded(owner, [carrying, tagging]);
    const tags = (await call("GET", `/api/links/${tagging}`, { token: owner.token })).body.tags as string[];
    // The second edit asked for "draft" after the first had given it: the renamed tag ("final") or a new "draft".
    expect(tags).toEqual(expect.arrayContaining(["extra"]));
    expect(tags).toHaveLength(2);
  });

  it("tags a link after a rename that was first, under the name asked for, and records each link's change once", async () => {
    const owner = await newUser("tag-race-after");
    const carrying = await make(owner, ["draft"]);
    const taggingOld = await make(owner, []);
    const taggingNew = await make(owner, []);
    const draft = await tagId(owner, "draft");

    const held = await holdHistory();
    const renamed = call("PATCH", `/api/tags/${draft}`, { token: owner.token, body: { name: "final" } });
    await waitingForLocks(1);
    const asked = [
      call("PATCH", `/api/links/${taggingOld}`, { token: owner.token, body: { tags: ["draft"] } }),
      call("PATCH", `/api/links/${taggingNew}`, { token: owner.token, body: { tags: ["final"] } }),
    ];
    await waitingForLocks(3);
    await held.release();
    const answers = await Promise.all([renamed, ...asked]);
    expect(
      answers.map((answer) => answer.status),
      answers.map((answer) => answer.text).join(" "),
    ).toEqual([200, 200, 200]);

    // The rename came first: "draft" asked for afterwards is a tag of that name again, "final" is the renamed one.
    expect((await call("GET", `/api/links/${taggingOld}`, { token: owner.token })).body.tags).toEqual(["draft"]);
    expect(await tagId(owner, "draft")).not.toBe(draft);
    expect(await tagId(owner, "final")).toBe(draft);
    await expectEveryTagChangeRecorded(owner, [carrying, taggingOld, taggingNew]);
    for (const id of [taggingOld, taggingNew]) expect(await db().linkHistory.count({ where: { linkId: id } })).toBe(2);
  });
});

async function historyOf(owner: TestUser, id: string) {
  return (await history(owner, id)).map((entry) => [entry.change, entry.before?.tags ?? null, entry.after.tags]);
}
