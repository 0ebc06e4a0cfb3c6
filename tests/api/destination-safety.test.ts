import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { forgetVerifiedHosts } from "@/lib/domains/verified-hosts";
import { resetSafetyChecker } from "@/lib/safety/instance";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, newUser } from "../support/api";
import { TEST_ZONE } from "../support/dns-server";

/** Each name of the test DNS zone that points inside a network, with every address it resolves to. */
const INTERNAL_NAMES = [
  [TEST_ZONE.privateName, ["10.0.0.7", "10.0.0.0"]],
  [TEST_ZONE.mixedName, ["192.168.1.20", "192.168.0.0"]],
  [TEST_ZONE.loopbackV6Name, ["::1"]],
] as const;

describe("no DNS oracle: a refused destination never says where its name points", () => {
  it.each(INTERNAL_NAMES)("answers %s without credentials with 422 and no address", async (name, addresses) => {
    const response = await call("POST", "/api/links", { body: { destination: `https://${name}/admin` } });
    expect(response.status).toBe(422);
    expect(response.body.error).toMatch(/internal or private address/);
    for (const address of addresses) expect(response.text).not.toContain(address);
    expect(response.text).not.toMatch(/loopback|unique-local|network address \(/);
  });

  it.each(INTERNAL_NAMES)("answers %s for an account with 422 and no address", async (name, addresses) => {
    const user = await newUser();
    const response = await call("POST", "/api/links", { token: user.token, body: { destination: `https://${name}/admin` } });
    expect(response.status).toBe(422);
    expect(response.body.error).toMatch(/internal or private address/);
    for (const address of addresses) expect(response.text).not.toContain(address);
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
  });

  it("gives the same sentence for every internal answer, so the kind of network does not leak either", async () => {
    const user = await newUser();
    const sentences = await Promise.all(
      INTERNAL_NAMES.map(
        async ([name]) =>
          (await call("POST", "/api/links", { token: user.token, body: { destination: `https://${name}/` } })).body.error,
      ),
    );
    expect(new Set(sentences).size).toBe(1);
  });
});

describe("special-use and private-use names", () => {
  it.each([
    "http://nas.lan/",
    "http://fritz.box/admin",
    "http://router.home.arpa/",
    "http://api.default.svc/",
    "http://1.0.168.192.in-addr.arpa/",
  ])("refuses %s with 422 and writes nothing", async (destination) => {
    const user = await newUser();
    const response = await call("POST", "/api/links", { token: user.token, body: { destination } });
    expect(response.status).toBe(422);
    expect(response.body.error).toMatch(/local or reserved name/);
    expect(await db().link.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
  });
});

describe("a destination on a host we serve short links on (a redirect loop)", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    resetConfig();
    resetSafetyChecker();
  });

  it("is refused on any workspace's verified custom domain, and accepted on a pending one", async () => {
    const owner = await newUser("domain-owner");
    const suffix = owner.userId.toLowerCase();
    await db().domain.createMany({
      data: [
        { id: newId("dom"), workspaceId: owner.workspaceId, hostname: `go-${suffix}.example.org`, verifiedAt: new Date() },
        { id: newId("dom"), workspaceId: owner.workspaceId, hostname: `pending-${suffix}.example.org` },
      ],
    });
    forgetVerifiedHosts();
    const stranger = await newUser("stranger");
    const looping = await call("POST", "/api/links", {
      token: stranger.token,
      body: { destination: `https://GO-${suffix}.example.org./menu` },
    });
    expect(looping.status).toBe(422);
    expect(looping.body.error).toMatch(/redirect loop/);
    const anonymous = await call("POST", "/api/links", { body: { destination: `https://go-${suffix}.example.org/menu` } });
    expect(anonymous.status).toBe(422);
    const pending = await call("POST", "/api/links", {
      token: stranger.token,
      body: { destination: `https://pending-${suffix}.example.org/menu` },
    });
    expect(pending.status).toBe(201);
  });

  it("is refused on the short host and on the app's own host", async () => {
    vi.stubEnv("BASE_URL", "https://app.permalink-test.net");
    vi.stubEnv("SHORT_BASE_URL", "https://go.permalink-test.net");
    resetConfig();
    resetSafetyChecker();
    const user = await newUser();
    for (const destination of ["https://go.permalink-test.net/abc", "https://APP.permalink-test.net:8443/docs"]) {
      const response = await call("POST", "/api/links", { token: user.token, body: { destination } });
      expect(response.status).toBe(422);
      expect(response.body.error).toMatch(/redirect loop/);
    }
    expect(
      (await call("POST", "/api/links", { token: user.token, body: { destination: "https://www.permalink-test.net/" } })).status,
    ).toBe(201);
  });
});
