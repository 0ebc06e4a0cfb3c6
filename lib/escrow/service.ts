import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { isRecordId } from "@/lib/db/random";
import { notFound } from "@/lib/http/errors";
import { enforceLimit, enforceReadBudget, limiterFor, type ReadBudget } from "@/lib/http/write-limit";
import { destinationNow } from "@/lib/links/destinations";
import { pendingRepoints, storedRules, storedSchedule } from "@/lib/links/routing";
import { ABUSE, QUARANTINE } from "@/lib/links/status";
import { requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { createHash, sign } from "node:crypto";
import {
  ESCROW_FORMAT,
  ESCROW_VERSION,
  type EscrowCode,
  type EscrowHeader,
  type EscrowScope,
  type EscrowTrailer,
  signedStatement,
} from "./format";
import { signingKey } from "./keys";
import type { CodeRow, CodeScope } from "./store";
import * as store from "./store";

/** Codes read at once: a page is written and let go before the next is read, so memory stays flat. */
const PAGE = 1000;

export const ESCROW_MEDIA_TYPE = "application/jsonl";

/** Downloads a minute: each reads every code of its scope. */
const ESCROWS: ReadBudget = { name: "escrows", perCredential: 10, perNetwork: 30, reads: "escrow downloads" };
const PUBLIC_PER_NETWORK = 30;

/** The workspace's snapshot: every code it issued, on every host, archived ones included. Owners and admins. */
export async function workspaceEscrow(principal: Principal, clientNetwork: string): Promise<Response> {
  requirePermission(principal, "escrow.read", "Only the workspace's owners and admins may download its escrow.");
  await enforceReadBudget(ESCROWS, principal, clientNetwork);
  return escrowDownload({ kind: "workspace", id: principal.workspaceId }, { workspaceId: principal.workspaceId });
}

/** Every code of the service, for the operator. */
export function serviceEscrow(): Response {
  return escrowDownload({ kind: "service" }, "service");
}

/** A custom domain's snapshot, for anyone, once its owners chose to publish it. */
export async function publishedDomainEscrow(domainId: string, clientNetwork: string): Promise<Response> {
  await enforceLimit(
    limiterFor("permalink:rate-limit:escrow-public-network", PUBLIC_PER_NETWORK),
    clientNetwork,
    "Too many escrow downloads this minute from your network",
  );
  const domain = isRecordId(domainId) ? await store.findDomain(domainId) : null;
  if (!domain || !domain.escrowPublication || !domain.verifiedAt)
    throw notFound("No published escrow exists for this domain: its owners have not chosen to publish one.");
  return escrowDownload(
    { kind: "domain", id: domain.id, host: domain.hostname },
    { domainId: domain.id },
    { withholdProtected: true },
  );
}

/** Whether a custom domain's snapshot is published, and where. Owners and admins (who manage domains) decide. */
export async function setDomainPublication(
  principal: Principal,
  domainId: string,
  published: boolean,
): Promise<{ domain_id: string; published: boolean; published_at: string | null; url: string | null; notice: string }> {
  requirePermission(principal, "domains.manage", "Your role in this workspace does not allow managing domains.");
  const domain = isRecordId(domainId) ? await store.findDomain(domainId) : null;
  if (!domain || domain.workspaceId !== principal.workspaceId) throw notFound("No domain with this id exists in this workspace.");
  const publishedAt = await store.setPublication(domain.id, published);
  return {
    domain_id: domain.id,
    published,
    published_at: publishedAt?.toISOString() ?? null,
    url: published ? publicationUrl(domain.id) : null,
    notice: PUBLIC_NOTICE,
  };
}

/** Said with every answer about publishing, so nobody publishes without knowing who can read the file. */
const PUBLIC_NOTICE =
  "Anyone with this address can download the file: it lists every code on this domain with its destination, rules " +
  "and scheduled changes. Password-protected codes are listed without their destinations.";

export function publicationUrl(domainId: string): string {
  return `${config().BASE_URL}/api/escrow/domains/${domainId}`;
}

/**
 * `withholdProtected`: the file is public (a published domain's), so a password-protected code is
 * written with its destinations withheld. The workspace's and the operator's files keep them:
 * their holders need them to keep serving.
 */
type Audience = { withholdProtected: boolean };
const PRIVATE: Audience = { withholdProtected: false };

function escrowDownload(scope: EscrowScope, codes: CodeScope, audience: Audience = PRIVATE): Response {
  const stamp = new Date(clock().now()).toISOString().slice(0, 10);
  const name = scope.kind === "service" ? "service" : scope.kind === "domain" ? scope.host : scope.id;
  return new Response(textStream(escrowLines(scope, codes, audience)), {
    headers: {
      "Content-Type": ESCROW_MEDIA_TYPE,
      "Content-Disposition": `attachment; filename="permalink-escrow-${name}-${stamp}.jsonl"`,
      "Cache-Control": "no-store",
    },
  });
}

/** A snapshot as lines of text: the header, one line a code, and the signature line over everything before it. */
export async function* escrowLines(scope: EscrowScope, codes: CodeScope, audience: Audience = PRIVATE): AsyncGenerator<string> {
  const key = await signingKey();
  const now = clock().now();
  const { BASE_URL, SHORT_BASE_URL } = config();
  const digest = createHash("sha256");
  const line = (value: unknown) => {
    const text = `${JSON.stringify(value)}\n`;
    digest.update(text);
    return text;
  };
  const header: EscrowHeader = {
    format: ESCROW_FORMAT,
    version: ESCROW_VERSION,
    service: BASE_URL,
    short_base_url: SHORT_BASE_URL,
    scope,
    snapshot_at: new Date(now).toISOString(),
    key: { id: key.id, algorithm: "Ed25519", public_key: key.publicKey },
    keys_url: `${BASE_URL}/.well-known/permalink-escrow.json`,
    domains: (await store.domainDestinations(codes)).map((domain) => ({
      host: domain.hostname,
      root_destination: domain.root,
      not_found_destination: domain.notFound,
    })),
  };
  yield line(header);
  const shortHost = new URL(SHORT_BASE_URL).host;
  let count = 0;
  let after: string | undefined;
  for (;;) {
    const rows = await store.pageOfCodes(codes, PAGE, after);
    if (rows.length > 0) yield rows.map((row) => line(escrowCode(row, shortHost, now, audience))).join("");
    count += rows.length;
    if (rows.length < PAGE) break;
    after = rows.at(-1)!.id;
  }
  const sha256 = digest.digest("hex");
  const signature = sign(null, signedStatement(sha256, count), key.privateKey).toString("base64url");
  const trailer: EscrowTrailer = { end: true, codes: count, sha256, signature };
  yield `${JSON.stringify(trailer)}\n`;
}

function escrowCode(row: CodeRow, shortHost: string, now: number, audience: Audience): EscrowCode {
  const code = codeLine(row, shortHost, now);
  if (!code.password_protected || !audience.withholdProtected) return code;
  return { ...code, destination: null, rules: [], schedule: [], scan_limit: null };
}

function codeLine(row: CodeRow, shortHost: string, now: number): EscrowCode {
  const schedule = storedSchedule(row.schedule);
  return {
    host: row.host ?? shortHost,
    slug: row.slug,
    destination: destinationNow({ status: row.status, destination: row.destination, schedule }, now),
    rules: storedRules(row.rules).map(({ when, destination }) => ({ when, destination })),
    schedule:
      row.status === ABUSE
        ? []
        : pendingRepoints(schedule, now).map((entry) => ({
            at: new Date(entry.at).toISOString(),
            destination: entry.destination,
          })),
    scan_limit:
      row.scanLimitAfter !== null && row.scanLimitDestination !== null
        ? { after: row.scanLimitAfter, destination: row.scanLimitDestination }
        : null,
    status: row.status === ABUSE ? "abuse" : row.status === QUARANTINE ? "quarantine" : "active",
    password_protected: row.passwordHash !== null,
    created_at: row.createdAt.toISOString(),
    archived_at: row.archivedAt?.toISOString() ?? null,
  };
}

/** Text from a generator as a byte stream, pulled as the reader asks. */
function textStream(lines: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
}
