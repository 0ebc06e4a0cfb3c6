import { parseBootstrap } from "@/lib/domains/rdap";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";

/**
 * Replaces the RDAP bootstrap snapshot the project ships (lib/domains/rdap-bootstrap.json) with
 * IANA's current file for DNS registrations (RFC 9224), checked to be in its format first. Run it
 * where the network reaches data.iana.org, and commit the file.
 */
const SOURCE = "https://data.iana.org/rdap/dns.json";
const TARGET = fileURLToPath(new URL("../lib/domains/rdap-bootstrap.json", import.meta.url));

let document: unknown;
try {
  const response = await fetch(SOURCE, { signal: AbortSignal.timeout(30_000), headers: { accept: "application/json" } });
  if (!response.ok) throw new Error(`${SOURCE} answered ${response.status}`);
  document = await response.json();
} catch (error) {
  // A command's own output for the person who ran it, not a log line.
  process.stderr.write(`The bootstrap file could not be downloaded (${(error as Error).message}); the snapshot is unchanged.\n`);
  process.exit(1);
}
const bootstrap = parseBootstrap(document);
const text = await format(JSON.stringify(bootstrap), { ...(await resolveConfig(TARGET)), parser: "json" });
writeFileSync(TARGET, text);
const tlds = bootstrap.services.reduce((count, [labels]) => count + labels.length, 0);
process.stdout.write(`Wrote ${TARGET}: ${tlds} TLDs, published ${bootstrap.publication}.\n`);
