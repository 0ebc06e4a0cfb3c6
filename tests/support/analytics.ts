import type { ScanRow } from "@/lib/analytics/enrich";
import { expect } from "vitest";
import { call, type TestUser } from "./api";

/** A link of the user's workspace to the destination, created through the API; its id. */
export async function createLink(user: TestUser, destination: string): Promise<string> {
  const response = await call("POST", "/api/links", { token: user.token, body: { destination } });
  expect(response.status).toBe(201);
  return response.body.id;
}

/** GET /api/analytics with the query, as the user; the report's body. */
export async function report(user: TestUser, query: Record<string, string>) {
  const response = await call("GET", `/api/analytics?${new URLSearchParams(query)}`, { token: user.token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** A person's scan of the link as the writer takes it (a phone in Australia, no visitor hash), with `changes` over it. */
export function scanRow(linkId: string, changes: Partial<ScanRow> = {}): ScanRow {
  return {
    linkId,
    host: "s.test.example",
    occurredAt: new Date(),
    userAgent: "Mozilla/5.0",
    referrerHost: null,
    country: "AU",
    viaQr: false,
    device: "mobile",
    browser: null,
    os: null,
    bot: false,
    visitor: null,
    ...changes,
  };
}
