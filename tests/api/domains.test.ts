import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { randomString } from "@/lib/db/random";
import { resetTlsProvider } from "@/lib/domains/tls";
import { forgetVerifiedHosts } from "@/lib/domains/verified-hosts";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { applicationRefusal, visitFor } from "@/lib/resolution/door";
import { resetSafetyChecker } from "@/lib/safety/instance";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser, type TestUser } from "../support/api";
import { TEST_ZONE } from "../support/dns-server";
import { type FakeDnsServer, startFakeDnsServer } from "../support/fake-dns-server";
import { visit } from "../support/visits";

const SHORT_HOST = "s.test.example";
const SHORT_IPV4 = "203.0.113.10";
const SHORT_IPV6 = "2001:db8::10";
const DOMAIN_FIELDS = [
  "id",
  "hostname",
  "verified",
  "cert_status",
  "hostname_status",
  "validation_errors",
  "created_at",
  "dns",
  "next",
  "root_destination",
  "not_found_destination",
  "root_destination_blocked",
  "not_found_destination_blocked",
  "registration_expires_at",
  "certificate_expires_at",
];

let dns: FakeDnsServer;

beforeAll(async () => {
  // This file's own DNS server, whose zone each test writes; every other name answers a public address.
  dns = await startFakeDnsServer({}, { a: [TEST_ZONE.publicAddress] });
  process.env.DNS_RESOLVER = dns.resolver;
  process.env.SHORT_HOST_IPV4 = SHORT_IPV4;
  process.env.SHORT_HOST_IPV6 = SHORT_IPV6;
  resetConfig();
  resetSafetyChecker();
  resetTlsProvider();
});

afterAll(async () => {
  await dns.close();
});

beforeEach(() => {
  forgetVerifiedHosts();
});

/** A registrable domain nobody else in the run uses, and a subdomain of it. */
function freshHostnames() {
  const apex = `shop-${randomString("abcdefghijkmnpqrstuvwxyz23456789", 10)}.com`;
  return { apex, sub: `go.${apex}` };
}

async function addDomain(user: TestUser, hostname: string, options: { headers?: Record<string, string> } = {}) {
  return call("POST", "/api/domains", { token: user.token, body: { hostname }, ...options });
}

function txtValue(domain: { dns: { type: string; name: string; value: string }[] }): string {
  return domain.dns.find((record) => record.type === "TXT")!.value;
}

/** The customer's records, all right: the ownership TXT (every token given) and the CNAME to the short host. */
function publishRight(hostname: string, ...tokens: string[]) {
  dns.set(`_permalink.${hostname}`, { txt: tokens });
  dns.set(hostname, { cname: SHORT_HOST });
}

async function verify(user: TestUser, id: string) {
  return call("POST", `/api/domains/${id}/verify`, { token: user.token });
}

/** A new user's verified custom domain with one link on it, to `destination`. */
async function verifiedDomainWithLink(destination: string) {
  const user = await newUser();
  const { sub } = freshHostnames();
  const added = await addDomain(user, sub);
  publishRight(sub, txtValue(added.body));
  await verify(user, added.body.id);
  const slug = `menu-${randomString(SLUG_ALPHABET, 6)}`;
  await call("POST", "/api/links", { token: user.token, body: { destination, slug, domain_id: added.body.id } });
  return { user, domainId: added.body.id as string, host: sub, slug };
}

describe("POST /api/domains", () => {
  it("adds a domain with exactly the spec's fields, the records to create and what to do next", async () => {
    const user = await newUser();
    const { sub } = freshHostnames();
    dns.set(sub, "nxdomain");
    const added = await addDomain(user, sub);
    expect(added.status).toBe(201);
    expect(Object.keys(added.body).sort()).toEqual([...DOMAIN_FIELDS].sort());
    expect(added.body).toMatchObject({ hostname: sub, verified: false, hostname_status: "pending", cert_status: "pending" });
    // Read by the expiry check once the domain is verified; not known before.
    expect(added.body).toMatchObject({ registration_expires_at: null, certificate_expires_at: null });
    expect(added.body.id).toMatch(/^dom_/);
    expect(typeof added.body.created_at).toBe("number");
    expect(added.body.dns).toEqual([
      { type: "TXT", name: `_permalink.${sub}`, value: expect.stringMatching(/^permalink-verify=[0-9A-Za-z]{32}$/) },
      { type: "CNAME", name: sub, value: SHORT_HOST },
    ]);
    expect(added.body.next).toMatch(/^Add the 2 records below/);
    expect(added.body.validation_errors).toEqual([
      expect.stringContaining(`The TXT record _permalink.${sub} is missing`),
      `${sub} has no CNAME record: add a CNAME to ${SHORT_HOST}.`,
    ]);

    const listed = await call("GET", "/api/domains", { token: user.token });
    expect(listed.body).toEqual({ domains: [added.body] });
    expect((await call("GET", `/api/domains/${added.body.id}`, { token: user.token })).body).toEqual(added.body);
  });

  it("gives every domain its own token, and the same workspace cannot add a hostname twice (409)", async () => {
    const user = await newUser();
    const { sub, apex } = freshHostnames();
    const first = await addDomain(user, sub);
    const second = await addDomain(user, `www.${apex}`);
    expect(txtValue(first.body)).not.toBe(txtValue(second.body));
    const again = await addDomain(user, sub.toUpperCase());
    expect(again.status).toBe(409);
    expect(again.body.error).toBe(`${sub} is already a domain of this workspace.`);
  });

  it("normalises the hostname like a destination's host: case, IDN, trailing dot, port", async () => {
    const user = await newUser();
    const { apex } = freshHostnames();
    expect((await addDomain(user, `  Links.${apex.toUpperCase()}.  `)).body.hostname).toBe(`links.${apex}`);
    expect((await addDomain(user, `go.${apex}:8443`)).body.hostname).toBe(`go.${apex}`);
    expect((await addDomain(user, `bücher.${apex}`)).body.hostname).toBe(`xn--bcher-kva.${apex}`);
  });

  it.each([
    ["an IPv4 literal", "203.0.113.7", /is an IP address/],
    ["an IPv6 literal", "[2001:db8::1]", /is an IP address/],
    ["an IPv4 literal in another notation", "0xcb.0.113.7", /is an IP address/],
    ["a single label", "printserver", /single-label/],
    ["localhost", "localhost", /local or reserved name/],
    ["a .local name", "printer.local", /local or reserved name/],
    ["an .internal name", "svc.corp.internal", /local or reserved name/],
    ["a metadata name", "metadata.google.internal", /metadata/],
    ["a public suffix", "co.uk", /public suffix/],
    ["a URL", "https://go.example.com/x", /not a hostname/],
    ["a wildcard", "*.example.com", /not a valid hostname/],
    ["an underscore label", "_dmarc.example.com", /not a valid hostname/],
  ])("refuses %s with 400", async (_case, hostname, message) => {
    const refused = await addDomain(await newUser(), hostname);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(message);
  });

  it("refuses the service's own hosts and names under them", async () => {
    process.env.SHORT_BASE_URL = "https://lnk.permalink-test.com";
    resetConfig();
    try {
      const user = await newUser();
      for (const hostname of ["lnk.permalink-test.com", "x.lnk.permalink-test.com"]) {
        const refused = await addDomain(user, hostname);
        expect(refused.status).toBe(400);
        expect(refused.body.error).toMatch(/this service's own host \(lnk\.permalink-test\.com\)/);
      }
    } finally {
      process.env.SHORT_BASE_URL = `http://${SHORT_HOST}`;
      resetConfig();
    }
  });

  it("needs an active subscription (402) and an owner or admin (403)", async () => {
    const unsubscribed = await newUser("lapsed", { subscription: false });
    const refused = await addDomain(unsubscribed, freshHostnames().sub);
    expect(refused.status).toBe(402);
    expect(refused.body.pay).toEqual(["subscribe"]);
    expect(refused.body.error).toMatch(/Existing links keep resolving/);

    const owner = await newUser();
    const member = await newUser("member");
    const asMember = await joinWorkspace(member, owner.workspaceId, "member");
    const forbidden = await call("POST", "/api/domains", { ...asMember, body: { hostname: freshHostnames().sub } });
    expect(forbidden.status).toBe(403);
    expect((await call("GET", "/api/domains", asMember)).status).toBe(200);
    const admin = await newUser("admin");
    const asAdmin = await joinWorkspace(admin, owner.workspaceId, "admin");
    expect((await call("POST", "/api/domains", { ...asAdmin, body: { hostname: freshHostnames().sub } })).status).toBe(201);
  });
});

describe("verification through DNS", () => {
  it("reports a CNAME that points elsewhere", async () => {
    const user = await newUser();
    const { sub } = freshHostnames();
    const added = await addDomain(user, sub);
    dns.set(`_permalink.${sub}`, { txt: [txtValue(added.body)] });
    dns.set(sub, { cname: "shops.elsewhere-host.net" });
    const checked = await verify(user, added.body.id);
    expect(checked.body).toMatchObject({ verified: false, hostname_status: "pending" });
    expect(checked.body.validation_errors).toEqual([
      `${sub} is a CNAME to shops.elsewhere-host.net, not to ${SHORT_HOST}: point it at ${SHORT_HOST}.`,
    ]);
  });

  it("reports a TXT record that holds another token", async () => {
    const user = await newUser();
    const { sub } = freshHostnames();
    const added = await addDomain(user, sub);
    publishRight(sub, "permalink-verify=somebody-elses-token");
    const checked = await verify(user, added.body.id);
    expect(checked.body.verified).toBe(false);
    expect(checked.body.validation_errors).toEqual([
      `The TXT record _permalink.${sub} does not hold this domain's token (it has ` +
        `"permalink-verify=somebody-elses-token"): set it to ${txtValue(added.body)}.`,
    ]);
  });

  it("verifies when every record is right, and links on it resolve on that host only", async () => {
    const user = await newUser();
    const { sub } = freshHostnames();
    const added = await addDomain(user, sub);
    publishRight(sub, "v=spf1 -all", txtValue(added.body));
    const checked = await verify(user, added.body.id);
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({
      verified: true,
      hostname_status: "active",
      cert_status: "on_demand",
      validation_errors: [],
    });
    expect(checked.body.dns).toEqual([{ type: "CNAME", name: sub, value: SHORT_HOST }]);
    expect(checked.body.next).toBe(`Ready: create links on this domain (POST /api/links with domain_id ${added.body.id}).`);

    const slug = `menu-${randomString(SLUG_ALPHABET, 6)}`;
    const link = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/menu", slug, domain_id: added.body.id },
    });
    expect(link.status).toBe(201);
    expect(link.body).toMatchObject({ host: sub, short_url: `https://${sub}/${slug}` });
    expect((await visit(`/${slug}`, { host: sub })).headers.Location).toBe("https://example.com/menu");
    expect((await visit(`/${slug}`)).status).toBe(404);
    // Slugs are unique per host: the same slug is free on the default host.
    expect(
      (await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/other", slug } })).status,
    ).toBe(201);
  });

  it("verifies an apex through its A and AAAA records", async () => {
    const user = await newUser();
    const { apex } = freshHostnames();
    const added = await addDomain(user, apex);
    expect(added.body.dns.slice(1)).toEqual([
      { type: "A", name: apex, value: SHORT_IPV4 },
      { type: "AAAA", name: apex, value: SHORT_IPV6 },
    ]);
    dns.set(`_permalink.${apex}`, { txt: [txtValue(added.body)] });
    dns.set(apex, { a: [SHORT_IPV4, "198.51.100.99"], aaaa: ["2001:0db8:0:0:0:0:0:10"] });
    const stray = await verify(user, added.body.id);
    expect(stray.body.verified).toBe(false);
    expect(stray.body.validation_errors).toEqual([
      `${apex} has A records pointing elsewhere (198.51.100.99): replace them with ${SHORT_IPV4}.`,
    ]);
    dns.set(apex, { a: [SHORT_IPV4], aaaa: ["2001:0db8:0:0:0:0:0:10"] });
    expect((await verify(user, added.body.id)).body).toMatchObject({ verified: true, hostname_status: "active" });
  });

  it("keeps a verified domain's links resolving after its records are removed, and says what changed", async () => {
    const { user, domainId, host: sub, slug } = await verifiedDomainWithLink("https://example.com/kept");

    dns.remove(`_permalink.${sub}`);
    dns.set(sub, "nxdomain");
    const checked = await verify(user, domainId);
    expect(checked.body).toMatchObject({ verified: true, hostname_status: "misconfigured" });
    expect(checked.body.validation_errors).toEqual([`${sub} has no CNAME record: add a CNAME to ${SHORT_HOST}.`]);
    expect(checked.body.next).toMatch(/keep working for every visit that reaches us/);
    forgetVerifiedHosts();
    expect((await visit(`/${slug}`, { host: sub })).headers.Location).toBe("https://example.com/kept");
  });

  it("shows a CAA record that forbids our certificate authority", async () => {
    const user = await newUser();
    const { sub, apex } = freshHostnames();
    const added = await addDomain(user, sub);
    publishRight(sub, txtValue(added.body));
    dns.set(apex, {
      a: [TEST_ZONE.publicAddress],
      caa: [
        { tag: "issue", value: "pki.other-ca.net" },
        { tag: "iodef", value: "mailto:sec@example.com" },
      ],
    });
    const checked = await verify(user, added.body.id);
    expect(checked.body).toMatchObject({ verified: true, hostname_status: "active", cert_status: "failed" });
    expect(checked.body.validation_errors).toEqual([
      `A CAA record on ${apex} allows only pki.other-ca.net to issue certificates, so ${sub} cannot ` +
        `get one from letsencrypt.org: add the record ${apex} CAA 0 issue "letsencrypt.org".`,
    ]);
    dns.set(apex, {
      a: [TEST_ZONE.publicAddress],
      caa: [
        { tag: "issue", value: "pki.other-ca.net" },
        { tag: "issue", value: "letsencrypt.org; validationmethods=http-01" },
      ],
    });
    expect((await verify(user, added.body.id)).body).toMatchObject({ cert_status: "on_demand", validation_errors: [] });
  });

  it("lets the first workspace to prove the TXT record own a hostname two workspaces race for", async () => {
    const [first, second] = [await newUser("first"), await newUser("second")];
    const { sub } = freshHostnames();
    const [a, b] = [await addDomain(first, sub), await addDomain(second, sub)];
    expect([a.status, b.status]).toEqual([201, 201]);
    publishRight(sub, txtValue(a.body), txtValue(b.body));
    const [checkedA, checkedB] = await Promise.all([verify(first, a.body.id), verify(second, b.body.id)]);
    const results = [checkedA.body, checkedB.body];
    expect(results.filter((domain) => domain.verified)).toHaveLength(1);
    const loser = results.find((domain) => !domain.verified)!;
    expect(loser.hostname_status).toBe("taken");
    expect(loser.validation_errors).toEqual([
      expect.stringMatching(new RegExp(`^Another workspace proved ownership of ${sub.replace(/\./g, "\\.")} first`)),
    ]);
    expect(await db().domain.count({ where: { hostname: sub, verifiedAt: { not: null } } })).toBe(1);
  });

  it("does not let a squatter who added the hostname first block its owner", async () => {
    const [squatter, owner] = [await newUser("squatter"), await newUser("owner")];
    const { sub } = freshHostnames();
    const squatted = await addDomain(squatter, sub);
    const claimed = await addDomain(owner, sub);
    publishRight(sub, txtValue(claimed.body));
    expect((await verify(squatter, squatted.body.id)).body).toMatchObject({ verified: false, hostname_status: "pending" });
    expect((await verify(owner, claimed.body.id)).body).toMatchObject({ verified: true, hostname_status: "active" });
    const after = await verify(squatter, squatted.body.id);
    expect(after.body).toMatchObject({ verified: false, hostname_status: "taken" });
    const slug = `x-${randomString(SLUG_ALPHABET, 6)}`;
    expect(
      (
        await call("POST", "/api/links", {
          token: squatter.token,
          body: { destination: "https://example.com/", slug, domain_id: squatted.body.id },
        })
      ).status,
    ).toBe(409);
  });
});

describe("links and the resolution door", () => {
  it("refuses another workspace's domain id (404) and an unverified one (409)", async () => {
    const owner = await newUser();
    const { sub } = freshHostnames();
    const added = await addDomain(owner, sub);
    const unverified = await call("POST", "/api/links", {
      token: owner.token,
      body: { destination: "https://example.com/", domain_id: added.body.id },
    });
    expect(unverified.status).toBe(409);
    expect(unverified.body.error).toMatch(/not verified yet/);
    const stranger = await newUser();
    const foreign = await call("POST", "/api/links", {
      token: stranger.token,
      body: { destination: "https://example.com/", domain_id: added.body.id },
    });
    expect(foreign.status).toBe(404);
    expect((await call("GET", `/api/domains/${added.body.id}`, { token: stranger.token })).status).toBe(404);
    expect((await verify(stranger, added.body.id)).status).toBe(404);
    expect((await call("DELETE", `/api/domains/${added.body.id}`, { token: stranger.token })).status).toBe(404);
  });

  it("learns of a newly verified domain at once, even after answering that the host was not ours", async () => {
    const user = await newUser();
    const { sub } = freshHostnames();
    const added = await addDomain(user, sub);
    const request = { method: "GET", hostHeader: sub, pathname: "/abc", search: "", header: () => null };
    expect(await visitFor(request)).toBeNull();
    publishRight(sub, txtValue(added.body));
    await verify(user, added.body.id);
    expect(await visitFor(request)).toMatchObject({ host: sub, slug: "abc" });
  });

  it("deletes a domain without links (204) and refuses one with links (409)", async () => {
    const user = await newUser();
    const { sub, apex } = freshHostnames();
    const bare = await addDomain(user, `www.${apex}`);
    expect((await call("DELETE", `/api/domains/${bare.body.id}`, { token: user.token })).status).toBe(204);
    expect((await call("GET", `/api/domains/${bare.body.id}`, { token: user.token })).status).toBe(404);

    const added = await addDomain(user, sub);
    publishRight(sub, txtValue(added.body));
    await verify(user, added.body.id);
    const link = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/", domain_id: added.body.id },
    });
    await call("DELETE", `/api/links/${link.body.id}`, { token: user.token });
    const refused = await call("DELETE", `/api/domains/${added.body.id}`, { token: user.token });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/has links, which must keep resolving/);
    expect((await call("GET", `/api/domains/${added.body.id}`, { token: user.token })).body.verified).toBe(true);
  });

  it("tells a removed domain's host to every door at once", async () => {
    const user = await newUser();
    const { sub } = freshHostnames();
    const added = await addDomain(user, sub);
    publishRight(sub, txtValue(added.body));
    await verify(user, added.body.id);
    const request = { method: "GET", hostHeader: sub, pathname: "/abc", search: "", header: () => null };
    expect(await visitFor(request)).not.toBeNull();
    await call("DELETE", `/api/domains/${added.body.id}`, { token: user.token });
    expect(await visitFor(request)).toBeNull();
  });
});

describe("hosts that serve short links only", () => {
  const request = (hostHeader: string, pathname: string, method = "GET") => ({
    method,
    hostHeader,
    pathname,
    search: "",
    header: () => null,
  });

  it("refuse the API with a 404 sentence and the dashboard and site with a 404 page, and keep resolving links", async () => {
    const { host, slug } = await verifiedDomainWithLink("https://example.com/menu");
    for (const hostHeader of [host, `${host.toUpperCase()}:443`, `${host}.`, SHORT_HOST]) {
      for (const method of ["GET", "POST", "DELETE"]) {
        const api = await applicationRefusal(request(hostHeader, "/api/links", method));
        expect([hostHeader, method, api?.status]).toEqual([hostHeader, method, 404]);
        expect(JSON.parse(api!.body).error).toMatch(/serves short links only/);
      }
      for (const path of [
        "/",
        "/dashboard",
        "/dashboard/links",
        "/signin",
        "/api/auth/session",
        "/invite/abc",
        "/_next/../api/links",
      ]) {
        const page = await applicationRefusal(request(hostHeader, path));
        expect([hostHeader, path, page?.status, page?.headers["Content-Type"]]).toEqual([
          hostHeader,
          path,
          404,
          path.startsWith("/api/") ? "application/json; charset=utf-8" : "text/html; charset=utf-8",
        ]);
      }
      expect(await applicationRefusal(request(hostHeader, "/api/health", "HEAD"))).toMatchObject({ status: 404, body: "" });
    }
    expect((await visit(`/${slug}`, { host })).headers.Location).toBe("https://example.com/menu");
    // The app's own top-level names are slugs like any other there: a visit, never the application.
    for (const reserved of ["/api", "/dashboard"]) {
      expect(await visitFor(request(host, reserved))).toMatchObject({ host, slug: reserved.slice(1) });
      expect((await visit(reserved, { host })).status).toBe(404);
    }
  });

  it("leave the application to the app's host, addresses, single names and names no workspace verified", async () => {
    const user = await newUser();
    const { sub } = freshHostnames();
    await addDomain(user, sub);
    const served = ["app.test.example", "127.0.0.1:3000", "[::1]:3000", "localhost", "my-app-x1y2.vercel.app", sub];
    for (const hostHeader of served) {
      for (const path of ["/api/health", "/api/domains/tls-ask", "/dashboard", "/"]) {
        expect([hostHeader, path, await applicationRefusal(request(hostHeader, path))]).toEqual([hostHeader, path, null]);
      }
    }
  });

  it("refuse a domain from the moment it is verified, on every door's next request", async () => {
    const user = await newUser();
    const { sub } = freshHostnames();
    const added = await addDomain(user, sub);
    expect(await applicationRefusal(request(sub, "/api/links"))).toBeNull();
    publishRight(sub, txtValue(added.body));
    await verify(user, added.body.id);
    expect(await applicationRefusal(request(sub, "/api/links"))).toMatchObject({ status: 404 });
  });
});

describe("GET /api/domains/tls-ask (Caddy on-demand TLS)", () => {
  it("allows a certificate for a verified domain only", async () => {
    const user = await newUser();
    const { sub } = freshHostnames();
    const added = await addDomain(user, sub);
    expect((await call("GET", `/api/domains/tls-ask?domain=${sub}`)).status).toBe(404);
    publishRight(sub, txtValue(added.body));
    await verify(user, added.body.id);
    const allowed = await call("GET", `/api/domains/tls-ask?domain=${sub.toUpperCase()}`);
    expect(allowed.status).toBe(200);
    expect(allowed.body).toEqual({ hostname: sub });
    expect((await call("GET", "/api/domains/tls-ask?domain=s.test.example")).status).toBe(404);
    expect((await call("GET", "/api/domains/tls-ask")).status).toBe(400);
  });
});
