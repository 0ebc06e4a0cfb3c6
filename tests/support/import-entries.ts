import { expect } from "vitest";
import { call, type TestUser } from "./api";

/** One entry of an import's report, as GET /api/imports/{id}/entries answers it. */
export type ImportEntry = {
  entry: number;
  row: number;
  code: string | null;
  outcome: string;
  link_id: string | null;
  error: string | null;
};

/** Every entry of an import's report, page by page (pageSize entries a page). */
export async function importEntries(user: TestUser, id: string, pageSize: number): Promise<ImportEntry[]> {
  const entries: ImportEntry[] = [];
  let cursor: string | null = null;
  do {
    const page = await call("GET", `/api/imports/${id}/entries?limit=${pageSize}${cursor ? `&cursor=${cursor}` : ""}`, {
      token: user.token,
    });
    expect(page.status).toBe(200);
    entries.push(...page.body.entries);
    cursor = page.body.next_cursor;
  } while (cursor);
  return entries;
}

/** The import's report once its job is done or failed (polled every 50 ms, for up to two minutes). */
export async function importFinished(user: TestUser, id: string) {
  for (let attempt = 0; attempt < 2400; attempt++) {
    const response = await call("GET", `/api/imports/${id}`, { token: user.token });
    if (response.body.status === "done" || response.body.status === "failed") return response.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`import ${id} did not finish`);
}
