import { requireDomainEntitlement } from "@/lib/billing/entitlement";
import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { BASE62, newId, randomString } from "@/lib/db/random";
import { DomainError, notFound } from "@/lib/http/errors";
import { vetDestination } from "@/lib/links/destination-gate";
import { publishInvalidation } from "@/lib/links/invalidation";
import { requirePermission } from "@/lib/workspaces/permissions";
import type { Principal } from "@/lib/workspaces/types";
import { checkDomain } from "./check";
import { parseCustomHostname } from "./hostname";
import { domainNotFound } from "./not-found";
import { toDomainView } from "./present";
import { routingTarget } from "./records";
import { removeDomainRow } from "./removal";
import type { AddDomainInput, DomainView, UpdateDomainInput } from "./schemas";
import type { DomainRow } from "./store";
import * as store from "./store";
import { lookUpVerifiedHost } from "./verified-hosts";

const TOKEN_LENGTH = 32;

/**
 * Claims a hostname for the workspace and checks its DNS at once, so the answer already says what
 * is missing. Several workspaces may claim one hostname; the first to prove the TXT record owns it.
 */
export async function addDomain(principal: Principal, input: AddDomainInput): Promise<DomainView> {
  requirePermission(
    principal,
    "domains.manage",
    "Your role in this workspace does not allow managing custom domains (owners and admins may).",
  );
  await requireDomainEntitlement(principal.workspaceId);
  const { hostname, apex } = parseCustomHostname(input.hostname, ownHosts());
  if (apex && routingTarget().ipv4.length === 0) {
    throw new DomainError(
      "invalid_request",
      `${hostname} is an apex domain, which cannot be a CNAME, and this deployment has no address for ` +
        `apex domains (SHORT_HOST_IPV4): use a subdomain such as go.${hostname}.`,
    );
  }
  const createdAt = new Date(clock().now());
  const row = await store.insertDomain({
    id: newId("dom"),
    workspaceId: principal.workspaceId,
    hostname,
    verificationToken: randomString(BASE62, TOKEN_LENGTH),
    createdAt,
  });
  if (!row) throw new DomainError("conflict", `${hostname} is already a domain of this workspace.`);
  return toDomainView(await checkedOrGone(row));
}

export async function listDomains(principal: Principal): Promise<{ domains: DomainView[] }> {
  requirePermission(principal, "domains.read", "Your role in this workspace does not allow reading custom domains.");
  return { domains: (await store.listWorkspaceDomains(principal.workspaceId)).map(toDomainView) };
}

export async function getDomain(principal: Principal, id: string): Promise<DomainView> {
  requirePermission(principal, "domains.read", "Your role in this workspace does not allow reading custom domains.");
  return toDomainView(await findOwnDomain(principal, id));
}

/** Checks the DNS now (the background job does the same on its schedule). */
export async function verifyDomain(principal: Principal, id: string): Promise<DomainView> {
  requirePermission(
    principal,
    "domains.manage",
    "Your role in this workspace does not allow managing custom domains (owners and admins may).",
  );
  return toDomainView(await checkedOrGone(await findOwnDomain(principal, id)));
}

/** The domain as the check left it; 404 when it was removed while its DNS was being looked up. */
async function checkedOrGone(row: DomainRow): Promise<DomainRow> {
  const checked = await checkDomain(row);
  if (!checked) throw domainNotFound();
  return checked;
}

/**
 * Where a verified domain sends its root and its unknown codes: each a destination through the
 * links' gate (the rules and the safety checks), or null for the service's own page; a field left
 * out stays as it is. The doors learn at once (the domain's invalidation, on every instance).
 */
export async function updateDomain(principal: Principal, id: string, input: UpdateDomainInput): Promise<DomainView> {
  requirePermission(
    principal,
    "domains.manage",
    "Your role in this workspace does not allow managing custom domains (owners and admins may).",
  );
  const domain = await findOwnDomain(principal, id);
  if (!domain.verifiedAt) {
    throw new DomainError(
      "conflict",
      `${domain.hostname} is not verified yet: once its records are right, it can send its root and unknown codes where you say.`,
    );
  }
  const vetted = async (destination: string | null | undefined) =>
    destination === undefined || destination === null ? destination : vetDestination(destination);
  const updated = await store.updateDomainDestinations(domain.id, {
    rootDestination: await vetted(input.root_destination),
    notFoundDestination: await vetted(input.not_found_destination),
  });
  if (!updated) throw domainNotFound();
  publishInvalidation({ kind: "domain", hostname: updated.hostname });
  return toDomainView(updated);
}

/** 409 while links live on the domain (they must keep resolving); otherwise the claim and its certificate go. */
export async function removeDomain(principal: Principal, id: string): Promise<void> {
  requirePermission(
    principal,
    "domains.manage",
    "Your role in this workspace does not allow managing custom domains (owners and admins may).",
  );
  await removeDomainRow(await findOwnDomain(principal, id));
}

/**
 * Caddy's on-demand TLS question: may a certificate be obtained for this name? Yes only for a
 * verified custom domain (one indexed lookup, cached), so nobody can make us request certificates
 * for names that are not ours to serve.
 */
export async function mayIssueCertificate(domain: string): Promise<string> {
  const hostname = domain.trim().toLowerCase().replace(/\.+$/, "");
  // Only letters, digits, hyphens and dots reach the database (a NUL there is an error, not a miss).
  if (!/^[a-z0-9.-]+$/.test(hostname)) {
    throw new DomainError("invalid_request", "The domain parameter is not a hostname: letters, digits, hyphens and dots only.");
  }
  const verified = await lookUpVerifiedHost(hostname);
  if (verified === null)
    throw new DomainError("not_configured", "The service cannot reach its database to answer; try again shortly.");
  if (!verified) throw notFound(`${hostname} is not a verified custom domain of this service.`);
  return hostname;
}

async function findOwnDomain(principal: Principal, id: string) {
  const domain = await store.findWorkspaceDomain(principal.workspaceId, id);
  if (!domain) throw domainNotFound();
  return domain;
}

function ownHosts(): string[] {
  const settings = config();
  return [new URL(settings.SHORT_BASE_URL).hostname, new URL(settings.BASE_URL).hostname];
}
