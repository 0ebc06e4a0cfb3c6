import { countryLookup } from "@/lib/analytics/countries";
import { enrichScan, type ScanRow } from "@/lib/analytics/enrich";
import type { CapturedScan } from "@/lib/analytics/types";
import { pool } from "@/lib/db/pool";
import { newId, randomString } from "@/lib/db/random";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { ACTIVE } from "@/lib/links/status";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { from as copyFrom } from "pg-copy-streams";

/**
 * Many links in one workspace, visited at random (QR codes on thousands of menus and posters, each
 * scanned a few times): slug `${prefix}${index}` for index 0 … count − 1, so wrk's Lua script can
 * name any of them without a file of a million paths.
 */
export type SpreadLinks = { workspaceId: string; prefix: string; count: number; linkIds: string[] };

/** Browsers the spread scenario's visitors use (wrk picks one a request; bench/spread.lua repeats the list). */
export const VISITOR_AGENTS = [
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 Edg/130.0.0.0",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) " +
    "SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
];

const COPY_CHUNK = 50_000;

/** Seeds `count` active links with one COPY (text format), a chunk of rows at a time. */
export async function seedSpreadLinks(count: number): Promise<SpreadLinks> {
  const workspaceId = newId("ws");
  const prefix = `sp${randomString(SLUG_ALPHABET, 4)}-`;
  const linkIds = Array.from({ length: count }, () => newId("lnk"));
  const client = await pool().connect();
  try {
    await client.query("INSERT INTO workspaces (id, name, kind) VALUES ($1, 'Spread benchmark', 'team')", [workspaceId]);
    const chunks = function* () {
      for (let from = 0; from < count; from += COPY_CHUNK) {
        let text = "";
        for (let index = from; index < Math.min(count, from + COPY_CHUNK); index++)
          text += `${linkIds[index]}\t${workspaceId}\t${prefix}${index}\tf\t${ACTIVE}\thttps://example.com/${index}\n`;
        yield text;
      }
    };
    await pipeline(
      Readable.from(chunks()),
      client.query(copyFrom("COPY links (id, workspace_id, slug, reusable, status, destination) FROM STDIN")),
    );
    await client.query("ANALYZE links");
  } finally {
    client.release();
  }
  return { workspaceId, prefix, count, linkIds };
}

/** `size` scans of random links among `links`, from varied visitors (browser and address), enriched as the writer does. */
export async function randomScanRows(links: SpreadLinks, size: number, host: string): Promise<ScanRow[]> {
  const countryOf = await countryLookup();
  const now = Date.now();
  return Array.from({ length: size }, (_, index) => {
    const scan: CapturedScan = {
      linkId: links.linkIds[Math.floor(Math.random() * links.count)]!,
      host,
      occurredAt: now - (size - index),
      method: "GET",
      viaQr: Math.random() < 0.5,
      userAgent: VISITOR_AGENTS[Math.floor(Math.random() * VISITOR_AGENTS.length)]!,
      referrer: null,
      edgeCountry: null,
      forwardedFor: randomAddress(),
      peerAddress: null,
      realIp: null,
      servedRule: null,
    };
    return enrichScan(scan, countryOf);
  });
}

function randomAddress(): string {
  const octet = () => Math.floor(Math.random() * 223) + 1;
  return `${octet()}.${octet()}.${octet()}.${octet()}`;
}
