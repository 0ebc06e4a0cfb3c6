import { DomainError } from "@/lib/http/errors";
import type { DnsRecord } from "../records";
import type { TlsProvider, TlsState } from "./provider";

export type VercelSettings = { token: string; projectId: string; teamId?: string; apiBase: string };

/** Vercel's project domain (GET /v9/projects/{id}/domains/{domain}); only the fields read here. */
type ProjectDomain = {
  name: string;
  verified: boolean;
  verification?: { type: string; domain: string; value: string; reason?: string }[];
};
/** Vercel's domain configuration (GET /v6/domains/{domain}/config). */
type DomainConfig = { misconfigured: boolean };
type VercelAnswer<Body> = { status: number; body: Body & { error?: { code?: string; message?: string } } };

const TIMEOUT_MS = 10_000;

/**
 * Certificates through the Vercel project domains API: a verified hostname is added to the
 * project (POST /v10/projects/{id}/domains), Vercel's own verification is asked for when it wants
 * one (POST …/verify), its configuration read (GET /v6/domains/{domain}/config: not misconfigured
 * means Vercel serves it with a certificate), and it is removed on delete (DELETE /v9/…).
 */
export function createVercelProvider(settings: VercelSettings): TlsProvider {
  const call = async <Body>(method: string, path: string, body?: unknown): Promise<VercelAnswer<Body>> => {
    const url = new URL(path, settings.apiBase);
    if (settings.teamId) url.searchParams.set("teamId", settings.teamId);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${settings.token}`, ...(body !== undefined && { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch {
      throw unreachable();
    }
    const parsed = (await response.json().catch(() => ({}))) as VercelAnswer<Body>["body"];
    if (response.status >= 500 || response.status === 401 || response.status === 429) throw unreachable(response.status);
    return { status: response.status, body: parsed };
  };
  const project = `/projects/${encodeURIComponent(settings.projectId)}/domains`;

  async function ensureAdded(hostname: string): Promise<ProjectDomain | TlsState> {
    const found = await call<ProjectDomain>("GET", `/v9${project}/${hostname}`);
    if (found.status === 200) return found.body;
    const added = await call<ProjectDomain>("POST", `/v10${project}`, { name: hostname });
    if (added.status === 200) return added.body;
    const reason = added.body.error?.message ?? `Vercel answered ${added.status}`;
    return {
      certStatus: "failed",
      records: [],
      problems: [`Vercel refused to add ${hostname} to this service's project: ${reason}`],
    };
  }

  return {
    name: "vercel",
    async inspect(hostname, verified) {
      if (!verified) return { certStatus: "pending", records: [], problems: [] };
      const added = await ensureAdded(hostname);
      if ("certStatus" in added) return added;
      const domain = added.verified ? added : await askToVerify(hostname, added);
      if (!domain.verified) {
        const records = (domain.verification ?? [])
          .filter((record) => record.type === "TXT")
          .map((record): DnsRecord => ({ type: "TXT", name: record.domain, value: record.value }));
        return {
          certStatus: "pending",
          records,
          problems: records.map(
            (record) =>
              `Vercel also needs the TXT record ${record.name} with the value ${record.value} before it issues a certificate.`,
          ),
        };
      }
      const config = await call<DomainConfig>("GET", `/v6/domains/${hostname}/config`);
      return {
        certStatus: config.status === 200 && !config.body.misconfigured ? "active" : "pending",
        records: [],
        problems: [],
      };
    },
    async detach(hostname) {
      const removed = await call<unknown>("DELETE", `/v9${project}/${hostname}`);
      if (removed.status !== 200 && removed.status !== 404) throw unreachable(removed.status);
    },
  };

  async function askToVerify(hostname: string, domain: ProjectDomain): Promise<ProjectDomain> {
    const verified = await call<ProjectDomain>("POST", `/v9${project}/${hostname}/verify`);
    return verified.status === 200 ? verified.body : domain;
  }
}

function unreachable(status?: number): DomainError {
  const detail = status === undefined ? "could not be reached" : `answered ${status}`;
  return new DomainError("provider_failed", `The TLS provider (Vercel) ${detail}; try again in a minute.`);
}
