import { WRITE_WINDOW_MS } from "@/lib/http/rate-limit/policy";
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export const LOCAL_REDIS_URL = "redis://127.0.0.1:6379";

export function uniquePrefix(): string {
  return `test:rate-limit:${randomUUID()}`;
}

/** A localhost port nothing listens on. */
export async function unusedLocalPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return address.port;
}

/**
 * Ratelimit's sliding window weighs the previous fixed window's count, which floors
 * away one hit just after a boundary; keep counting tests clear of one.
 */
export async function waitUntilClearOfWindowBoundary(marginMs = 2_000): Promise<void> {
  const untilBoundary = WRITE_WINDOW_MS - (Date.now() % WRITE_WINDOW_MS);
  if (untilBoundary < marginMs) await sleep(untilBoundary + 50);
}
