import { clock } from "@/lib/clock";
import { db } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { forgetVerifiedHosts } from "@/lib/domains/verified-hosts";
import { beforeEach, describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser, type TestUser } from "../support/api";
import { visit } from "../support/visits";

beforeEach(() => forgetVerifiedHosts());

async function domainOf(user: TestUser, verified = true): Promise<{ id: string; hostname: string }> {
  const hostname = `go-${randomString("abcdefghijkmnpqrstuvwxyz", 8)}.destinations-test.com`;
  const id = newId("dom");
  await db().domain.create({
    data: { id, workspaceId: user.workspaceId, hostname, ...(verified && { verifiedAt: new Date(clock().now()) }) },
  });
  return { id, hostname };
}

const patch = (user: TestUser, id: string, body: unknown) => call("PATCH", `/api/domains/${id}`, { token: user.token, body });

describe("PATCH /api/domains/{id}: where a verified domain's root and unknown codes go", () => {
  it("sets both through the links' destination gate, shows them in the Domain, keeps a field left out and clears with null", async () => {
    const user = await newUser();
    const domain = await domainOf(user);
    const set = await patch(user, domain.id, {
      root_destination: "https://Example.com/home",
      not_found_destination: "https://example.com/missing",
    });
    expect(set.status).toBe(200);
    // Stored normalised, as a link's destination is.
    expect(set.body).toMatchObject({
      root_destination: "https://example.com/home",
      not_found_destination: "https://example.com/missing",
    });
    const onlyRoot = await patch(user, domain.id, { root_destination: "https://example.com/welcome" });
    expect(onlyRoot.body).toMatchObject({
      root_destination: "https://example.com/welcome",
      not_found_destination: "https://example.com/missing",
    });
    const listed = await call("GET", "/api/domains", { token: user.token });
    expect(listed.body.domains[0]).toMatchObject({ root_destination: "https://example.com/welcome" });
    const cleared = await patch(user, domain.id, { root_destination: null, not_found_destination: null });
    expect(cleared.body).toMatchObject({ root_destination: null, not_found_destination: null });
  });

  it.each([
    ["an address that is not http or https", { root_destination: "javascript:alert(1)" }, 400, /scheme|http/i],
    ["an internal address", { not_found_destination: "http://127.0.0.1/admin" }, 422, /./],
    ["a field it does not have", { fallback: "https://example.com/" }, 400, /fallback/],
    ["an empty destination", { root_destination: "" }, 400, /must not be empty/],
  ])("refuses %s with a sentence", async (_label, body, status, sentence) => {
    const user = await newUser();
    const domain = await domainOf(user);
    const refused = await patch(user, domain.id, body);
    expect([refused.status, refused.body.error]).toEqual([status, expect.stringMatching(sentence)]);
    expect(await db().domain.findUniqueOrThrow({ where: { id: domain.id } })).toMatchObject({
      rootDestination: null,
      notFoundDestination: null,
    });
  });

  it("refuses an unverified domain (409), a member (403) and another workspace's domain (404)", async () => {
    const user = await newUser();
    const pending = await domainOf(user, false);
    const refused = await patch(user, pending.id, { root_destination: "https://example.com/" });
    expect([refused.status, refused.body.error]).toEqual([409, expect.stringContaining("is not verified yet")]);
    const domain = await domainOf(user);
    const asMember = await call("PATCH", `/api/domains/${domain.id}`, {
      ...(await joinWorkspace(await newUser("member"), user.workspaceId, "member")),
      body: { root_destination: "https://example.com/" },
    });
    expect([asMember.status, asMember.body.error]).toEqual([403, expect.stringContaining("managing custom domains")]);
    expect((await patch(await newUser(), domain.id, { root_destination: "https://example.com/" })).status).toBe(404);
  });
});

describe("a verified domain's root and unknown codes through the doors' shared logic", () => {
  it("redirects the root and unknown codes where the owner says, never instead of an existing code, and learns a change at once", async () => {
    const user = await newUser();
    const domain = await domainOf(user);
    const made = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/menu", slug: "menu", domain_id: domain.id },
    });
    expect(made.status).toBe(201);
    await db().link.update({ where: { id: made.body.id }, data: { status: 0 } });
    const on = (path: string) => visit(path, { host: domain.hostname });

    // Our plain pages by default; the visits cache the domain and the misses.
    expect((await on("/")).status).toBe(404);
    expect((await on("/")).body).toContain("serves short links only");
    expect((await on("/gone")).body).toContain("This short link does not exist");

    await patch(user, domain.id, {
      root_destination: "https://example.com/home",
      not_found_destination: "https://example.com/lost",
    });
    expect(await on("/?utm_source=card")).toMatchObject({
      status: 302,
      headers: { Location: "https://example.com/home?utm_source=card" },
    });
    expect(await on("/gone")).toMatchObject({ status: 302, headers: { Location: "https://example.com/lost" } });
    expect(await on("/2024/gone")).toMatchObject({ status: 302, headers: { Location: "https://example.com/lost" } });
    // An existing code answers for itself, and so does one typed in another case (looked for first).
    expect(await on("/menu")).toMatchObject({ status: 302, headers: { Location: "https://example.com/menu" } });
    expect(await on("/MENU")).toMatchObject({ status: 302, headers: { Location: "https://example.com/menu" } });

    await patch(user, domain.id, { root_destination: null, not_found_destination: null });
    expect((await on("/")).status).toBe(404);
    expect((await on("/gone")).body).toContain("This short link does not exist");
    // No scan is recorded for a domain's own redirect: only links have scans.
    expect(await db().scanEvent.count({ where: { host: domain.hostname } })).toBe(0);
  });
});

describe("Dub's _root", () => {
  it("imports as the verified domain's root_destination, is kept by a re-run and never replaces another", async () => {
    const user = await newUser();
    const domain = await domainOf(user);
    const file = (destination: string) =>
      JSON.stringify([
        { id: "link_root", domain: domain.hostname, key: "_root", url: destination, shortLink: `https://${domain.hostname}` },
        {
          id: "link_menu",
          domain: domain.hostname,
          key: "menu",
          url: "https://example.com/dub/menu",
          shortLink: `https://${domain.hostname}/menu`,
        },
      ]);
    const run = async (body: string, query = "") => {
      const started = await call("POST", `/api/imports${query}`, {
        token: user.token,
        rawBody: body,
        headers: { "content-type": "application/json" },
      });
      for (;;) {
        const job = await call("GET", `/api/imports/${started.body.id}`, { token: user.token });
        if (job.body.status === "done") return job.body;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    expect(await run(file("https://example.com/dub/home"), "?dry_run=1")).toMatchObject({ created: 2, failed: 0 });
    expect((await db().domain.findUniqueOrThrow({ where: { id: domain.id } })).rootDestination).toBeNull();
    expect(await run(file("https://example.com/dub/home"))).toMatchObject({ created: 2, failed: 0 });
    expect((await db().domain.findUniqueOrThrow({ where: { id: domain.id } })).rootDestination).toBe(
      "https://example.com/dub/home",
    );
    expect(await visit("/", { host: domain.hostname })).toMatchObject({
      status: 302,
      headers: { Location: "https://example.com/dub/home" },
    });
    expect(await run(file("https://example.com/dub/home"))).toMatchObject({ created: 0, kept: 2, failed: 0 });
    const other = await run(file("https://example.com/dub/elsewhere"));
    expect(other).toMatchObject({ created: 0, kept: 1, failed: 1 });
    expect(other.errors[0].error).toContain("already sends visitors to https://example.com/dub/home");

    // The re-check stopped serving the root: the same row is no longer "kept", since visitors get our plain page.
    await db().domain.update({ where: { id: domain.id }, data: { rootDestinationBlocked: "a safety check found it malicious" } });
    for (const query of ["?dry_run=1", ""]) {
      const blocked = await run(file("https://example.com/dub/home"), query);
      expect(blocked).toMatchObject({ created: 0, kept: 1, failed: 1 });
      expect(blocked.errors[0].error).toMatch(
        /The root of \S+ is set to this destination, but the safety re-check stopped sending visitors there \(a safety check found it malicious\)/,
      );
    }
    expect((await db().domain.findUniqueOrThrow({ where: { id: domain.id } })).rootDestinationBlocked).not.toBeNull();
  });
});
