import { mintSessionToken } from "@/lib/auth/session-tokens";
import { completeLocalCheckout } from "@/lib/billing/local-provider";
import { startCheckout } from "@/lib/billing/service";
import { closePool, pool } from "@/lib/db/pool";
import type { ImportView } from "@/lib/imports/schemas";
import { ACTIVE } from "@/lib/links/status";
import { ensureFreshBuild } from "@/server/app-process";
import { boot } from "@/server/boot";
import { TEST_ZONE } from "@/tests/support/dns-server";
import { startFakeDnsServer } from "@/tests/support/fake-dns-server";
import { mkdir, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { pinningNote } from "./cpus";
import { runBenchScript, writeReadmeBlock } from "./script";
import { benchServerEnv, oneLink, waitForScans } from "./seed";
import { type BenchServer, requireProjectNode, startServer } from "./servers";
import { requireWrk, socketErrors, wrk, type WrkResult } from "./wrk";

/**
 * `npm run bench` (or `npx tsx bench/import.ts [--rows 100000] [--slice-seconds 10]`): a generic
 * CSV of `rows` links imported through POST /api/imports on `npm start`'s front door at the default
 * budgets (the workspace's 60 writes a minute, the import's own 12,000), with the destinations' DNS answering, timed from the job's creation to `done` (the job's own times); the
 * warm redirect of another workspace's link is driven by wrk in slices during the import, each
 * followed by an idle slice (so the job's rate is seen with and without the load), and the same
 * redirect in slices before and after the import is the reference: during ÷ without, same run.
 */
const { values: options } = parseArgs({
  options: {
    rows: { type: "string", default: "100000" },
    "slice-seconds": { type: "string", default: "10" },
    "reference-slices": { type: "string", default: "3" },
    connections: { type: "string", default: "50" },
    "no-readme": { type: "boolean", default: false },
  },
});

const ROWS = Number(options.rows);
const SLICE_SECONDS = Number(options["slice-seconds"]);
const REFERENCE_SLICES = Number(options["reference-slices"]);
const CONNECTIONS = Number(options.connections);
const SHORT_HOST = "s.bench.example";
/** The import's own budget, the default (IMPORT_WRITES_PER_MINUTE): one write a row, never the workspace's 60 a minute. */
const IMPORT_BUDGET_PER_MINUTE = 12_000;
/** Distinct destination hosts in the file: each is looked up in DNS by the safety checks. */
const DESTINATION_HOSTS = 500;
/** The target: 100,000 rows within 15 minutes at the default budgets. */
const TARGET_SECONDS = 900;
const IMPORT_LIMIT_MS = 30 * 60_000;

/** A slice of the import: under redirect load (wrk's result) or idle (null), and the job's progress over it. */
type Slice = { result: WrkResult | null; loaded: boolean; processedBefore: number; processedAfter: number; ms: number };

/** A file as a customer's other service exports it: a destination and a title a row, no short link (every link gets a new code). */
function genericCsv(rows: number): string {
  const lines = ["url,title"];
  for (let index = 0; index < rows; index++)
    lines.push(`https://shop${index % DESTINATION_HOSTS}.example.com/items/${index},Item ${index}`);
  return `${lines.join("\r\n")}\r\n`;
}

/** A signed-in customer's workspace with an active subscription (the local provider's checkout, completed), and its bearer token. */
async function customer(server: BenchServer): Promise<{ token: string; workspaceId: string }> {
  const email = `import-bench-${Date.now()}@example.com`;
  const token = await mintSessionToken(email);
  const answer = await fetch(`${server.url}/api/workspaces`, { headers: { Authorization: `Bearer ${token}` } });
  const { workspace } = (await answer.json()) as { workspace: { id: string } };
  const { rows } = await pool().query<{ id: string }>("SELECT id FROM users WHERE email = $1", [email]);
  const principal = { kind: "session", userId: rows[0]!.id, workspaceId: workspace.id, role: "owner" } as const;
  const { url } = await startCheckout(principal, { plan: "unlimited", interval: "month" });
  await completeLocalCheckout(new URL(url).pathname.split("/").at(-1)!);
  return { token, workspaceId: workspace.id };
}

async function importJob(server: BenchServer, token: string, path: string, init?: RequestInit): Promise<ImportView> {
  const response = await fetch(`${server.url}${path}`, {
    ...init,
    headers: { ...init?.headers, Authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as ImportView | { error: string };
  if ("error" in body) throw new Error(`${path} answered ${response.status}: ${body.error}`);
  return body;
}

async function redirectSlice(server: BenchServer, slug: string): Promise<WrkResult> {
  return wrk({
    url: server.url,
    paths: [`/${slug}`],
    host: SHORT_HOST,
    seconds: SLICE_SECONDS,
    connections: CONNECTIONS,
    threads: 1,
  });
}

async function referenceSlices(server: BenchServer, slug: string, workspaceId: string): Promise<WrkResult[]> {
  const results: WrkResult[] = [];
  for (let slice = 0; slice < REFERENCE_SLICES; slice++) {
    await waitForScans(workspaceId, 3000);
    results.push(await redirectSlice(server, slug));
  }
  return results;
}

/** Counts summed; the p99 of the upper median slice (as bench/run.ts combines its slices). */
function combined(results: WrkResult[]) {
  const requests = results.reduce((total, result) => total + result.requests, 0);
  const seconds = results.reduce((total, result) => total + result.durationUs, 0) / 1e6;
  const p99s = results.map((result) => result.p99Us / 1000).sort((a, b) => a - b);
  const unexpected = results.reduce((total, result) => total + result.statusErrors + socketErrors(result), 0);
  return {
    perSecond: Math.round(requests / seconds),
    p99Ms: p99s[Math.floor(p99s.length / 2)]!,
    slices: results.length,
    unexpected,
  };
}

/** Starts the import, then alternates a slice of redirect load with an idle slice until the job is done. */
async function importUnderLoad(server: BenchServer, token: string, slug: string) {
  const file = genericCsv(ROWS);
  const posted = performance.now();
  const started = await importJob(server, token, "/api/imports?format=generic", {
    method: "POST",
    headers: { "Content-Type": "text/csv" },
    body: file,
  });
  const acceptedMs = performance.now() - posted;
  // The workspace keeps creating links while its import runs: the import's writes are its own budget's.
  const created = await fetch(`${server.url}/api/links`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ destination: "https://example.com/created-during-the-import" }),
  });
  const linkDuring = {
    status: created.status,
    importStatus: (await importJob(server, token, `/api/imports/${started.id}`)).status,
  };
  const slices: Slice[] = [];
  let job = started;
  const deadline = Date.now() + IMPORT_LIMIT_MS;
  for (let loaded = true; job.status !== "done" && job.status !== "failed" && Date.now() < deadline; loaded = !loaded) {
    const before = job.processed;
    const began = performance.now();
    const result = loaded ? await redirectSlice(server, slug) : await sleep(SLICE_SECONDS * 1000, null);
    job = await importJob(server, token, `/api/imports/${started.id}`);
    slices.push({ result, loaded, processedBefore: before, processedAfter: job.processed, ms: performance.now() - began });
  }
  while (job.status !== "done" && job.status !== "failed" && Date.now() < deadline) {
    await sleep(500);
    job = await importJob(server, token, `/api/imports/${started.id}`);
  }
  return { job, acceptedMs, fileBytes: Buffer.byteLength(file), slices, linkDuring };
}

/** Rows a second the job handled over the slices of one kind (a slice in which the job finished counts up to its end). */
function rowsPerSecond(slices: Slice[], loaded: boolean): number | null {
  const chosen = slices.filter((slice) => slice.loaded === loaded && slice.processedAfter > slice.processedBefore);
  const rows = chosen.reduce((total, slice) => total + slice.processedAfter - slice.processedBefore, 0);
  const seconds = chosen.reduce((total, slice) => total + slice.ms, 0) / 1000;
  return seconds > 0 ? Math.round(rows / seconds) : null;
}

const thousands = (value: number) => Math.round(value).toLocaleString("en-US");
const check = (met: boolean) => (met ? "✓" : "✗");

async function main(): Promise<void> {
  requireProjectNode();
  requireWrk();
  const { embedded } = await boot();
  const dns = await startFakeDnsServer({}, { a: [TEST_ZONE.publicAddress] });
  await ensureFreshBuild({ showOutput: true });
  const redirect = await oneLink(ACTIVE, "i", "https://example.com/during-import");
  const server = await startServer("front", {
    ...benchServerEnv(SHORT_HOST, dns.resolver),
    BILLING_PROVIDER: "local",
  });
  try {
    const { token } = await customer(server);
    await redirectSlice(server, redirect.slug);
    const before = await referenceSlices(server, redirect.slug, redirect.workspaceId);
    console.log(`  redirect without an import (before): ${JSON.stringify(combined(before))}`);
    const run = await importUnderLoad(server, token, redirect.slug);
    const seconds = run.job.finished_at === null ? null : (run.job.finished_at - run.job.created_at) / 1000;
    console.log(
      `  import: ${JSON.stringify({ ...run.job, errors: run.job.errors.slice(0, 3), seconds, acceptedMs: run.acceptedMs })}`,
    );
    const after = await referenceSlices(server, redirect.slug, redirect.workspaceId);
    const without = combined([...before, ...after]);
    const during = combined(run.slices.flatMap((slice) => (slice.result ? [slice.result] : [])));
    const loadedRate = rowsPerSecond(run.slices, true);
    const idleRate = rowsPerSecond(run.slices, false);
    const ratio = during.perSecond / without.perSecond;
    const date = new Date().toISOString();
    const header =
      `Measured ${date}: ${thousands(ROWS)} rows of a generic CSV (${(run.fileBytes / 2 ** 20).toFixed(1)} MB, ` +
      `${DESTINATION_HOSTS} destination hosts, DNS answering) through POST /api/imports on \`npm start\`'s front door, ` +
      `at the default budgets (the import's own ${thousands(IMPORT_BUDGET_PER_MINUTE)} links a minute, the workspace's ` +
      `60 writes a minute untouched); the warm redirect of another workspace's active link ` +
      `with wrk -t1 -c${CONNECTIONS} in ${SLICE_SECONDS} s slices during the import (each followed by an idle slice) ` +
      `and ${REFERENCE_SLICES} before and ${REFERENCE_SLICES} after it; ${pinningNote()} (the import's job runs in the ` +
      `app's Next process, on the same CPU as the front door); PostgreSQL${embedded ? " (embedded)" : ""}.`;
    const table = [
      "| measure | value | target |",
      "|---|---:|---|",
      `| import: created / skipped / failed of ${thousands(ROWS)} rows | ${thousands(run.job.created)} / ` +
        `${thousands(run.job.skipped)} / ${thousands(run.job.failed)} ` +
        `${check(run.job.status === "done" && run.job.failed === 0)} | every row created |`,
      `| import: 202 answered after (file read and parsed) | ${(run.acceptedMs / 1000).toFixed(1)} s | — |`,
      `| import: job created → done | ${seconds === null ? `not done after ${IMPORT_LIMIT_MS / 60_000} min` : `${seconds.toFixed(0)} s`} ` +
        `${check(seconds !== null && seconds < TARGET_SECONDS)} | under ${TARGET_SECONDS} s |`,
      `| POST /api/links during the import (import ${run.linkDuring.importStatus}) | ${run.linkDuring.status} ` +
        `${check(run.linkDuring.status === 201)} | 201 |`,
      `| import: rows a second with the redirect under load / idle | ${loadedRate ?? "—"} / ${idleRate ?? "—"} | — |`,
      `| warm redirect without an import: requests/s, p99 | ${thousands(without.perSecond)}, ${without.p99Ms.toFixed(1)} ms | — |`,
      `| warm redirect during the import: requests/s, p99 | ${thousands(during.perSecond)}, ${during.p99Ms.toFixed(1)} ms | — |`,
      `| during ÷ without: requests/s | ${ratio.toFixed(2)} ${check(ratio >= 0.8)} | ≥ 0.80 |`,
      `| during: p99 | ${during.p99Ms.toFixed(1)} ms ${check(during.p99Ms <= 10)} | ≤ 10 ms |`,
      `| unexpected answers (during / without) | ${during.unexpected} / ${without.unexpected} ` +
        `${check(during.unexpected + without.unexpected === 0)} | 0 |`,
    ].join("\n");
    const job = { ...run.job, errors: run.job.errors.slice(0, 20) };
    const record = {
      date,
      rows: ROWS,
      job,
      acceptedMs: run.acceptedMs,
      seconds,
      before,
      after,
      slices: run.slices,
      without,
      during,
    };
    await mkdir("bench/results", { recursive: true });
    await writeFile(`bench/results/import-${date.replace(/[:.]/g, "-")}.json`, `${JSON.stringify(record, null, 2)}\n`);
    await writeFile("bench/results/import-latest.md", `${header}\n\n${table}\n`);
    if (!options["no-readme"]) await writeReadmeBlock("bench-import", `${header}\n\n${table}\n`);
    console.log(`\n${header}\n\n${table}`);
  } finally {
    await server.stop();
    await closePool();
    await dns.close();
    await embedded?.close();
  }
}

runBenchScript(main);
