import type { ScanRow } from "@/lib/analytics/enrich";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { randomBytes } from "node:crypto";
import pg from "pg";

/** Retries an expectation until it holds or `timeoutMs` passes (then its last failure is thrown). */
export async function eventually(expectation: () => Promise<void>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await expectation();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Scans of these links in the raw table, read on a connection of its own (never through a cut, never the app's pool). */
export async function rawScansOf(databaseUrl: string, links: { ids: string[] } | { slugs: string[] }): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ total: string }>(
      "ids" in links
        ? "SELECT COALESCE(SUM(scans), 0) AS total FROM scan_events WHERE link_id = ANY($1)"
        : "SELECT COALESCE(SUM(e.scans), 0) AS total FROM scan_events e JOIN links l ON l.id = e.link_id WHERE l.slug = ANY($1)",
      ["ids" in links ? links.ids : links.slugs],
    );
    return Number(rows[0]!.total);
  } finally {
    await client.end();
  }
}

/** A person's scan from an iPhone in Australia, as the writer takes it; a new visitor each time. */
export function iphoneScan(linkId: string, occurredAt: Date): ScanRow {
  return {
    linkId,
    host: "s.test.example",
    occurredAt,
    userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)",
    referrerHost: null,
    country: "AU",
    viaQr: true,
    device: "mobile",
    browser: "Safari",
    os: "iOS",
    bot: false,
    visitor: randomBytes(16).toString("hex"),
  };
}

/** Deletes the JetStream streams a suite made on the NATS server at `servers` (gone ones are skipped). */
export async function deleteStreams(servers: string, streams: readonly string[]): Promise<void> {
  const connection = await connect({ servers });
  const manager = await jetstreamManager(connection);
  for (const stream of streams) await manager.streams.delete(stream).catch(() => undefined);
  await connection.close();
}
