import { Resolver } from "node:dns/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type VercelRequest = {
  method: string;
  path: string;
  teamId: string | null;
  authorization: string | undefined;
  body: unknown;
};

type ProjectDomain = {
  name: string;
  apexName: string;
  projectId: string;
  verified: boolean;
  verification?: { type: string; domain: string; value: string; reason: string }[];
  createdAt: number;
  updatedAt: number;
};

export type VercelStandInOptions = {
  token: string;
  projectId: string;
  teamId: string;
  /** The DNS server it looks records up on, as Vercel looks up the public DNS. */
  resolver: string;
  /** What a correctly configured domain points at: a CNAME to this host, or A records to these addresses. */
  cnameTarget: string;
  addresses: string[];
};

export type VercelStandIn = {
  /** For VERCEL_API_BASE. */
  url: string;
  requests: VercelRequest[];
  /** The project's domains as Vercel holds them. */
  domains: Map<string, ProjectDomain>;
  /** Vercel will ask for its own TXT challenge (the name is in use on another Vercel account) when this hostname is added. */
  requireChallenge(hostname: string): { name: string; value: string };
  /** Another Vercel project already has this hostname: adding it answers 409. */
  inUseElsewhere(hostname: string): void;
  /** Every request answers this status (an outage) until called with null. */
  outage(status: number | null): void;
  close(): Promise<void>;
};

/**
 * A local stand-in for api.vercel.com's project domains API, speaking its wire format: bearer
 * token and teamId checked on every call, `{ error: { code, message } }` failures, project domain
 * objects with `verified` and `verification`, and a domain config whose `misconfigured` it
 * decides, like Vercel, by looking the records up in DNS.
 */
export async function startVercelStandIn(options: VercelStandInOptions): Promise<VercelStandIn> {
  const requests: VercelRequest[] = [];
  const domains = new Map<string, ProjectDomain>();
  const challenges = new Map<string, { name: string; value: string }>();
  const elsewhere = new Set<string>();
  let failing: number | null = null;
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([options.resolver]);

  const server = createServer((request, response) => {
    let raw = "";
    request.setEncoding("utf8");
    request.on("data", (chunk) => (raw += chunk));
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://stand-in");
      const body = raw ? JSON.parse(raw) : undefined;
      requests.push({
        method: request.method ?? "",
        path: url.pathname,
        teamId: url.searchParams.get("teamId"),
        authorization: request.headers.authorization,
        body,
      });
      void answer(request.method ?? "", url, body, request.headers.authorization).then(({ status, body: answerBody }) => {
        response.writeHead(status, { "content-type": "application/json; charset=utf-8" });
        response.end(JSON.stringify(answerBody));
      });
    });
  });

  async function answer(
    method: string,
    url: URL,
    body: unknown,
    authorization: string | undefined,
  ): Promise<{ status: number; body: unknown }> {
    if (failing !== null) return error(failing, "internal_server_error", "An unexpected internal error occurred.");
    if (authorization !== `Bearer ${options.token}`) return error(403, "forbidden", "Not authorized");
    if (url.searchParams.get("teamId") !== options.teamId)
      return error(403, "forbidden", "You don't have permission to access this team.");
    const project = `/projects/${options.projectId}/domains`;
    const path = url.pathname;
    let match: RegExpExecArray | null;
    if (method === "POST" && path === `/v10${project}`) return add((body as { name?: string })?.name ?? "");
    if ((match = new RegExp(`^/v9${project}/([^/]+)/verify$`).exec(path)) && method === "POST") return verify(match[1]!);
    if ((match = new RegExp(`^/v9${project}/([^/]+)$`).exec(path))) {
      const domain = domains.get(match[1]!);
      if (method === "GET")
        return domain ? { status: 200, body: domain } : error(404, "not_found", "The domain was not found on this project.");
      if (method === "DELETE")
        return domains.delete(match[1]!)
          ? { status: 200, body: {} }
          : error(404, "not_found", "The domain was not found on this project.");
    }
    if ((match = /^\/v6\/domains\/([^/]+)\/config$/.exec(path)) && method === "GET") return config(match[1]!);
    return error(404, "not_found", `The requested path ${path} does not exist.`);
  }

  function add(name: string) {
    if (!name) return error(400, "bad_request", "Invalid request: missing required property `name`.");
    if (domains.has(name)) return error(400, "domain_already_exists", `The domain ${name} is already assigned to this project.`);
    if (elsewhere.has(name))
      return error(409, "domain_already_in_use", `Cannot add ${name} since it's already in use by another project.`);
    const challenge = challenges.get(name);
    const now = Date.now();
    const domain: ProjectDomain = {
      name,
      apexName: name.split(".").slice(-2).join("."),
      projectId: options.projectId,
      verified: !challenge,
      ...(challenge && {
        verification: [{ type: "TXT", domain: challenge.name, value: challenge.value, reason: "pending_domain_verification" }],
      }),
      createdAt: now,
      updatedAt: now,
    };
    domains.set(name, domain);
    return { status: 200, body: domain };
  }

  async function verify(name: string) {
    const domain = domains.get(name);
    if (!domain) return error(404, "not_found", "The domain was not found on this project.");
    const challenge = challenges.get(name);
    if (challenge && !(await txtValues(challenge.name)).includes(challenge.value)) {
      return error(
        400,
        "missing_txt_record",
        `Domain ${name} was added to a different project. Please complete verification to add it to this project instead.`,
      );
    }
    const verified: ProjectDomain = { ...domain, verified: true, verification: undefined, updatedAt: Date.now() };
    delete verified.verification;
    domains.set(name, verified);
    return { status: 200, body: verified };
  }

  async function config(name: string) {
    const [cname, addresses] = await Promise.all([
      resolver.resolveCname(name).catch(() => []),
      resolver.resolve4(name).catch(() => []),
    ]);
    const byCname = cname.some((target) => target.toLowerCase() === options.cnameTarget);
    const byAddress = addresses.length > 0 && addresses.every((address) => options.addresses.includes(address));
    const configuredBy = byCname ? "CNAME" : byAddress ? "A" : null;
    return {
      status: 200,
      body: {
        configuredBy,
        acceptedChallenges: ["http-01"],
        misconfigured: configuredBy === null,
        conflicts: [],
        recommendedCNAME: [],
        recommendedIPv4: [],
      },
    };
  }

  async function txtValues(name: string): Promise<string[]> {
    return (await resolver.resolveTxt(name).catch(() => [])).map((chunks) => chunks.join(""));
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    domains,
    requireChallenge(hostname) {
      const challenge = {
        name: `_vercel.${hostname.split(".").slice(-2).join(".")}`,
        value: `vc-domain-verify=${hostname},${Math.random().toString(16).slice(2, 14)}`,
      };
      challenges.set(hostname, challenge);
      return challenge;
    },
    inUseElsewhere: (hostname) => void elsewhere.add(hostname),
    outage: (status) => void (failing = status),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  function error(status: number, code: string, message: string) {
    return { status, body: { error: { code, message } } };
  }
}
