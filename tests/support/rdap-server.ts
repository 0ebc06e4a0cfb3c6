import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type RdapServer = {
  /** http://127.0.0.1:<port>/rdap/: the base URL a bootstrap file names. */
  base: string;
  /** Sets when a domain's registration lapses (null: the registry has no record of it, 404). */
  setExpiry(domain: string, expiresAt: Date | null): void;
  /** The paths asked for, in order. */
  requests: string[];
  close(): Promise<void>;
};

/**
 * A registry's RDAP server on 127.0.0.1 speaking RFC 9083's JSON (application/rdap+json): GET
 * <base>domain/<name> answers the domain object with its registration, last-changed and
 * expiration events, or RFC 9083 §6's error object (404) for a name it does not hold.
 */
export async function startRdapServer(): Promise<RdapServer> {
  const expiries = new Map<string, Date>();
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://rdap.test").pathname;
    requests.push(path);
    const name = /^\/rdap\/domain\/([^/]+)$/.exec(path)?.[1]?.toLowerCase();
    const expiresAt = name ? expiries.get(decodeURIComponent(name)) : undefined;
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/rdap+json" });
      response.end(JSON.stringify(body));
    };
    if (!name || !expiresAt)
      return answer(404, {
        rdapConformance: ["rdap_level_0"],
        errorCode: 404,
        title: "Not Found",
        description: ["The domain is not registered here."],
      });
    answer(200, {
      objectClassName: "domain",
      rdapConformance: ["rdap_level_0", "icann_rdap_response_profile_0", "icann_rdap_technical_implementation_guide_0"],
      handle: `${name.toUpperCase().replace(/\./g, "_")}-TEST`,
      ldhName: name.toUpperCase(),
      status: ["client transfer prohibited"],
      events: [
        { eventAction: "registration", eventDate: "2019-03-04T05:06:07Z" },
        { eventAction: "last changed", eventDate: "2026-01-02T03:04:05Z" },
        { eventAction: "expiration", eventDate: expiresAt.toISOString().replace(/\.\d{3}Z$/, "Z") },
        { eventAction: "last update of RDAP database", eventDate: new Date().toISOString() },
      ],
      nameservers: [{ objectClassName: "nameserver", ldhName: "NS1.REGISTRAR-EXAMPLE.NET" }],
      secureDNS: { delegationSigned: false },
      notices: [{ title: "Terms of Use", description: ["Test data."] }],
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}/rdap/`,
    setExpiry: (domain, expiresAt) => void (expiresAt ? expiries.set(domain, expiresAt) : expiries.delete(domain)),
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
