import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { stopServingDestination } from "@/lib/domains/destination-blocks";
import { writeDailySnapshot } from "@/lib/escrow/archive";
import { type EscrowCode, type EscrowKeysDocument, keyId, rawPublicKey, signedStatement } from "@/lib/escrow/format";
import { resetSigningKey } from "@/lib/escrow/keys";
import { verifyEscrow } from "@/lib/escrow/verify";
import { generateKeyPairSync, sign } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, dashboardSignIn, joinWorkspace, newUser, type TestUser } from "../support/api";
import { visit } from "../support/visits";

const OPERATOR_TOKEN = "operator-token-for-the-escrow-0123456789";

beforeAll(() => {
  process.env.OPERATOR_TOKEN = OPERATOR_TOKEN;
  resetConfig();
});

afterAll(() => {
  delete process.env.OPERATOR_TOKEN;
  resetConfig();
});

async function keys(): Promise<EscrowKeysDocument["keys"]> {
  const response = await call("GET", "/api/escrow/keys");
  expect(response.status).toBe(200);
  return response.body.keys;
}

async function verified(text: string) {
  return verifyEscrow([Buffer.from(text)], { trusted: await keys(), keep: true });
}

/** A workspace with a link on the short host, one archived, one with rules and a schedule, one on a custom domain. */
async function workspaceWithCodes(): Promise<{ owner: TestUser; domainId: string; hostname: string; ids: string[] }> {
  const owner = await newUser("escrow-owner");
  const ids: string[] = [];
  const make = async (body: Record<string, unknown>) => {
    const made = await call("POST", "/api/links", { token: owner.token, body });
    expect(made.status, made.text).toBe(201);
    ids.push(made.body.id);
    return made.body.id as string;
  };
  await make({ destination: "https://example.com/menu" });
  const archived = await make({ destination: "https://example.com/old" });
  expect((await call("DELETE", `/api/links/${archived}`, { token: owner.token })).status).toBe(200);
  const later = Date.now() + 86_400_000;
  const routed = await make({ destination: "https://example.com/routed" });
  const routing = await call("PATCH", `/api/links/${routed}`, {
    token: owner.token,
    body: {
      rules: [{ when: { language: ["fr"] }, destination: "https://example.com/fr" }],
      schedule: [{ at: later, destination: "https://example.com/tomorrow" }],
    },
  });
  expect(routing.status, routing.text).toBe(200);
  const hostname = `go-${owner.userId.toLowerCase()}.example.org`;
  const domain = await db().domain.create({
    data: { id: newId("dom"), workspaceId: owner.workspaceId, hostname, verifiedAt: new Date() },
  });
  await make({ destination: "https://example.com/custom", domain_id: domain.id, slug: "spring-menu" });
  return { owner, domainId: domain.id, hostname, ids };
}

const PUBLIC_NOTICE =
  "Anyone with this address can download the file: it lists every code on this domain with its destination, rules " +
  "and scheduled changes. Password-protected codes are listed without their destinations.";

describe("the escrow of every code", () => {
  it("streams every code of the workspace, archived and on every host, signed and verifiable without the service", async () => {
    const { owner, hostname, ids } = await workspaceWithCodes();
    const other = await newUser("escrow-other");
    await call("POST", "/api/links", { token: other.token, body: { destination: "https://example.com/not-mine" } });

    const response = await call("GET", "/api/escrow", { token: owner.token });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/jsonl");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="permalink-escrow-.+\.jsonl"$/);
    const result = await verified(response.text);
    expect(result).toMatchObject({ ok: true, codes: 4 });
    if (!result.ok) return;
    expect(result.header.scope).toEqual({ kind: "workspace", id: owner.workspaceId });
    const links = await db().link.findMany({ where: { id: { in: ids } } });
    const bySlug = new Map(result.kept.map((code) => [code.slug, code]));
    for (const link of links) expect(bySlug.get(link.slug)!.host).toBe(link.host ?? "s.test.example");
    expect(bySlug.get("spring-menu")).toMatchObject({ host: hostname, destination: "https://example.com/custom" });
    const archived = links.find((link) => link.destination === "https://example.com/old")!;
    expect(bySlug.get(archived.slug)!.archived_at).toBe(archived.archivedAt!.toISOString());
    const routed = result.kept.find((code) => code.destination === "https://example.com/routed")!;
    expect(routed).toMatchObject({
      rules: [{ when: { language: ["fr"] }, destination: "https://example.com/fr" }],
      schedule: [{ destination: "https://example.com/tomorrow" }],
      status: "quarantine",
      password_protected: false,
    });
    expect(result.kept.some((code: EscrowCode) => code.destination?.includes("not-mine"))).toBe(false);
  });

  it("gives the signed-in dashboard the same signed file, behind Settings' download link", async () => {
    const email = `escrow-dashboard-${Date.now()}@example.com`;
    const { session } = await dashboardSignIn(email);
    const { id: userId } = await db().user.findFirstOrThrow({ where: { email }, select: { id: true } });
    const { workspaceId } = await db().membership.findFirstOrThrow({ where: { userId }, select: { workspaceId: true } });
    const download = await call("GET", "/dashboard/settings/escrow", { headers: { cookie: session } });
    expect(download.status, download.text).toBe(200);
    expect(download.headers.get("content-disposition")).toMatch(/^attachment; filename="permalink-escrow-.+\.jsonl"$/);
    const result = await verified(download.text);
    expect(result).toMatchObject({ ok: true, header: { scope: { kind: "workspace", id: workspaceId } } });
    expect((await call("GET", "/dashboard/settings/escrow")).status).toBe(401);
  });

  it("lets owners, admins and the key download it, not members or viewers", async () => {
    const { owner } = await workspaceWithCodes();
    const statuses: Record<string, number> = {};
    for (const role of ["admin", "member", "viewer"] as const) {
      const as = await joinWorkspace(await newUser(`escrow-${role}`), owner.workspaceId, role);
      const response = await call("GET", "/api/escrow", as);
      statuses[role] = response.status;
      if (response.status === 403)
        expect(response.body.error).toBe("Only the workspace's owners and admins may download its escrow.");
    }
    expect(statuses).toEqual({ admin: 200, member: 403, viewer: 403 });
  });

  it("refuses a forged, re-signed, truncated or reordered file with a sentence that says what is wrong", async () => {
    const { owner } = await workspaceWithCodes();
    const text = (await call("GET", "/api/escrow", { token: owner.token })).text;
    const lines = text.split("\n");
    const problem = async (changed: string) => {
      const result = await verified(changed);
      expect(result.ok).toBe(false);
      return result.ok ? "" : result.problem;
    };

    const forged = text.replace("https://example.com/menu", "https://evil.example/menu");
    expect(await problem(forged)).toBe(
      "The file's contents do not match its signature line: a line was changed after it was signed.",
    );
    expect(await problem(lines.slice(0, 3).join("\n") + "\n")).toBe(
      "The file is truncated: it ends after line 3 without its signature line (2 codes were read).",
    );
    expect(await problem(text.slice(0, text.indexOf("\n", text.indexOf("\n") + 1) + 20))).toMatch(
      /^The file is truncated: line 3 stops part-way, before the signature line \(1 codes were read whole\)\.$/,
    );
    const dropped = [lines[0], ...lines.slice(2)].join("\n");
    expect(await problem(dropped)).toBe(
      "The signature line counts 4 codes but the file holds 3: codes were added or removed after signing.",
    );
    const repeated = [lines[0], lines[1], lines[1], ...lines.slice(2)].join("\n");
    expect(await problem(repeated)).toMatch(/^Line 3 lists the code \S+ again \(first on line 2\): each code appears once\.$/);
    expect(await problem(text + '{"extra":1}\n')).toBe(
      "The file goes on after its signature line (line 7): nothing there is signed.",
    );
    expect(await problem("")).toBe("The file is empty: it holds no escrow.");
    expect(await problem("id,slug\n")).toBe("This is not a Permalink escrow file: its first line is not JSON.");

    // A forger signs the changed file with a key of their own and pins it in the header: the signature holds, the key is not ours.
    const { privateKey } = generateKeyPairSync("ed25519");
    const raw = rawPublicKey(privateKey);
    const header = {
      ...JSON.parse(lines[0]!),
      key: { id: keyId(raw), algorithm: "Ed25519", public_key: raw.toString("base64url") },
    };
    const body = [JSON.stringify(header), ...lines.slice(1, -2).map((line) => line.replace("/menu", "/phish"))]
      .map((line) => `${line}\n`)
      .join("");
    const { createHash } = await import("node:crypto");
    const sha256 = createHash("sha256").update(body).digest("hex");
    const signature = sign(null, signedStatement(sha256, 4), privateKey).toString("base64url");
    const resigned = `${body}${JSON.stringify({ end: true, codes: 4, sha256, signature })}\n`;
    expect(await problem(resigned)).toBe(
      `The file is signed by key ${keyId(raw)}, which is not one of the service's keys: whoever signed it is not the service.`,
    );
    // Its signature swapped into our file: the key the header pins refuses it.
    const swapped = [...lines.slice(0, -2), JSON.stringify({ ...JSON.parse(lines.at(-2)!), signature }), ""].join("\n");
    expect(await problem(swapped)).toMatch(
      /^The signature is forged or damaged: it does not verify with the key the header pins \(.+\)\.$/,
    );
  });

  it("gives the operator every code of the service, and nobody else", async () => {
    const [first, second] = await Promise.all([workspaceWithCodes(), workspaceWithCodes()]);
    expect((await call("GET", "/api/operator/escrow", { token: first.owner.token })).status).toBe(401);
    const response = await call("GET", "/api/operator/escrow", { token: OPERATOR_TOKEN });
    expect(response.status).toBe(200);
    const result = await verified(response.text);
    expect(result.ok && result.header.scope).toEqual({ kind: "service" });
    expect(result.ok && result.codes).toBe(await db().link.count());
    const slugs = new Set(result.ok ? result.kept.map((code) => `${code.host}/${code.slug}`) : []);
    for (const id of [...first.ids, ...second.ids]) {
      const link = await db().link.findUniqueOrThrow({ where: { id } });
      expect(slugs.has(`${link.host ?? "s.test.example"}/${link.slug}`)).toBe(true);
    }
  });

  it("publishes a domain's snapshot at a public address once its owners opt in, and stops when they opt out", async () => {
    const { owner, domainId, hostname } = await workspaceWithCodes();
    const publicAddress = `/api/escrow/domains/${domainId}`;
    const unpublished = await call("GET", publicAddress);
    expect(unpublished.status).toBe(404);
    expect(unpublished.body.error).toBe("No published escrow exists for this domain: its owners have not chosen to publish one.");
    const member = await joinWorkspace(await newUser("escrow-member"), owner.workspaceId, "member");
    expect((await call("PUT", `/api/domains/${domainId}/escrow`, { ...member, body: { published: true } })).status).toBe(403);
    expect(
      (await call("PUT", `/api/domains/${domainId}/escrow`, { token: owner.token, body: { published: "yes" } })).status,
    ).toBe(400);

    const published = await call("PUT", `/api/domains/${domainId}/escrow`, { token: owner.token, body: { published: true } });
    expect(published.status, published.text).toBe(200);
    expect(published.body).toEqual({
      domain_id: domainId,
      published: true,
      published_at: expect.any(String),
      url: `http://app.test.example${publicAddress}`,
      notice: PUBLIC_NOTICE,
    });
    const snapshot = await call("GET", publicAddress);
    expect(snapshot.status).toBe(200);
    const result = await verified(snapshot.text);
    expect(result.ok && result.header.scope).toEqual({ kind: "domain", id: domainId, host: hostname });
    expect(result.ok && result.kept.map((code) => [code.host, code.slug])).toEqual([[hostname, "spring-menu"]]);

    await call("PUT", `/api/domains/${domainId}/escrow`, { token: owner.token, body: { published: false } });
    expect((await call("GET", publicAddress)).status).toBe(404);
  });

  it("rotates to a configured key and keeps every snapshot signed before verifiable", async () => {
    const { owner } = await workspaceWithCodes();
    const before = (await call("GET", "/api/escrow", { token: owner.token })).text;
    const { privateKey } = generateKeyPairSync("ed25519");
    process.env.ESCROW_SIGNING_KEY = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    resetConfig();
    resetSigningKey();
    try {
      const after = (await call("GET", "/api/escrow", { token: owner.token })).text;
      const listed = await keys();
      const configuredId = keyId(rawPublicKey(privateKey));
      expect(JSON.parse(after.split("\n")[0]!).key.id).toBe(configuredId);
      expect(listed.find((key) => key.id === configuredId)).toMatchObject({ retired_at: null });
      const earlier = JSON.parse(before.split("\n")[0]!).key.id;
      expect(listed.find((key) => key.id === earlier)!.retired_at).toEqual(expect.any(String));
      expect(await verified(before)).toMatchObject({ ok: true });
      expect(await verified(after)).toMatchObject({ ok: true });
      // The same document at the address the format names (a folder the suite's router skips, so its handler is called).
      const { GET } = await import("@/app/.well-known/permalink-escrow.json/route");
      const wellKnown = await GET(new Request("http://app.test.example/.well-known/permalink-escrow.json"), {
        params: Promise.resolve({}),
      });
      expect(wellKnown.status).toBe(200);
      expect(((await wellKnown.json()) as EscrowKeysDocument).keys).toEqual(listed);
    } finally {
      delete process.env.ESCROW_SIGNING_KEY;
      resetConfig();
      resetSigningKey();
    }
    // Without the setting again, a fresh key is generated and sealed; the configured one is retired, still listed.
    const third = (await call("GET", "/api/escrow", { token: owner.token })).text;
    expect(await verified(third)).toMatchObject({ ok: true });
    expect((await keys()).filter((key) => key.retired_at === null)).toHaveLength(1);
    const sealed = await db().escrowKey.findFirstOrThrow({ where: { retiredAt: null } });
    expect(sealed.sealedPrivateKey).toMatch(/^v1\./);
    expect(sealed.sealedPrivateKey).not.toContain("PRIVATE KEY");
  });

  it("refuses an ESCROW_SIGNING_KEY that is no Ed25519 key, naming the setting", async () => {
    const { parseConfig } = await import("@/lib/config");
    expect(() => parseConfig({ ...process.env, ESCROW_SIGNING_KEY: "not-a-key" })).toThrow(/ESCROW_SIGNING_KEY.*Ed25519/s);
    expect(() => parseConfig({ ...process.env, ESCROW_SIGNING_KEY: Buffer.alloc(16).toString("base64") })).toThrow(
      /ESCROW_SIGNING_KEY/,
    );
    const seed = Buffer.alloc(32, 7).toString("base64");
    expect(parseConfig({ ...process.env, ESCROW_SIGNING_KEY: seed }).ESCROW_SIGNING_KEY).toBe(seed);
  });

  it("writes one snapshot a day to the directory and keeps the last ESCROW_KEEP", async () => {
    await workspaceWithCodes();
    const directory = await mkdtemp(join(tmpdir(), "permalink-escrow-"));
    process.env.ESCROW_DIRECTORY = directory;
    process.env.ESCROW_KEEP = "2";
    resetConfig();
    const start = Date.UTC(2027, 0, 10, 3, 0);
    try {
      const runs = [];
      for (const offset of [0, 3600_000, 86_400_000, 2 * 86_400_000]) {
        setClock({ now: () => start + offset });
        runs.push(await writeDailySnapshot());
      }
      expect(runs.map((run) => [run.written?.slice(directory.length + 1) ?? null, run.kept, run.removed])).toEqual([
        ["permalink-escrow-2027-01-10.jsonl", 1, 0],
        [null, 1, 0],
        ["permalink-escrow-2027-01-11.jsonl", 2, 0],
        ["permalink-escrow-2027-01-12.jsonl", 2, 1],
      ]);
      expect(runs[0]!.codes).toBe(await db().link.count());
      expect((await readdir(directory)).sort()).toEqual([
        "permalink-escrow-2027-01-11.jsonl",
        "permalink-escrow-2027-01-12.jsonl",
      ]);
      const result = await verified(await readFile(join(directory, "permalink-escrow-2027-01-12.jsonl"), "utf8"));
      expect(result).toMatchObject({ ok: true, header: { scope: { kind: "service" }, snapshot_at: "2027-01-12T03:00:00.000Z" } });
    } finally {
      setClock(undefined);
      delete process.env.ESCROW_DIRECTORY;
      delete process.env.ESCROW_KEEP;
      resetConfig();
      await rm(directory, { recursive: true, force: true });
    }
  });
  it("withholds a password-protected code's destinations from a published (public) file, and keeps them for the workspace", async () => {
    const { owner, domainId, hostname } = await workspaceWithCodes();
    const made = await call("POST", "/api/links", {
      token: owner.token,
      body: { destination: "https://example.com/secret-staff-menu", domain_id: domainId, slug: "staff", password: "hunter2-xyz" },
    });
    expect(made.status, made.text).toBe(201);
    const routing = await call("PATCH", `/api/links/${made.body.id}`, {
      token: owner.token,
      body: {
        rules: [{ when: { language: ["fr"] }, destination: "https://example.com/secret-fr" }],
        schedule: [{ at: Date.now() + 86_400_000, destination: "https://example.com/secret-later" }],
        scan_limit: { after: 5, destination: "https://example.com/secret-spent" },
      },
    });
    expect(routing.status, routing.text).toBe(200);
    expect((await call("PUT", `/api/domains/${domainId}/escrow`, { token: owner.token, body: { published: true } })).status).toBe(
      200,
    );

    const snapshot = await call("GET", `/api/escrow/domains/${domainId}`);
    expect(snapshot.status).toBe(200);
    expect(snapshot.text).not.toContain("secret");
    const result = await verified(snapshot.text);
    expect(result.ok, result.ok ? "" : result.problem).toBe(true);
    if (!result.ok) return;
    expect(result.kept.find((code) => code.slug === "staff")).toEqual({
      host: hostname,
      slug: "staff",
      destination: null,
      rules: [],
      schedule: [],
      scan_limit: null,
      status: expect.stringMatching(/^(active|quarantine)$/),
      password_protected: true,
      created_at: expect.any(String),
      archived_at: null,
    });
    expect(result.kept.find((code) => code.slug === "spring-menu")!.destination).toBe("https://example.com/custom");

    const own = await call("GET", "/api/escrow", { token: owner.token });
    const mine = await verified(own.text);
    expect(mine.ok && mine.kept.find((code) => code.slug === "staff")).toMatchObject({
      destination: "https://example.com/secret-staff-menu",
      rules: [{ when: { language: ["fr"] }, destination: "https://example.com/secret-fr" }],
      schedule: [{ destination: "https://example.com/secret-later" }],
      scan_limit: { after: 5, destination: "https://example.com/secret-spent" },
      password_protected: true,
    });
    // A null destination is accepted only for a password-protected code.
    const lines = own.text.split("\n");
    const open = lines.findIndex((line) => line.includes('"spring-menu"'));
    lines[open] = lines[open]!.replace('"https://example.com/custom"', "null");
    const refused = await verified(lines.join("\n"));
    expect(refused.ok || refused.problem).toBe(
      `Line ${open + 1} is not a code as the format has it: destination is missing (only a password-protected code's may be null).`,
    );
  });

  it("holds a custom domain's root and not-found destinations in the domain's and the workspace's files", async () => {
    const { owner, domainId, hostname } = await workspaceWithCodes();
    const set = await call("PATCH", `/api/domains/${domainId}`, {
      token: owner.token,
      body: { root_destination: "https://example.com/home", not_found_destination: "https://example.com/lost" },
    });
    expect(set.status, set.text).toBe(200);
    const domains = [
      { host: hostname, root_destination: "https://example.com/home", not_found_destination: "https://example.com/lost" },
    ];
    const own = await verified((await call("GET", "/api/escrow", { token: owner.token })).text);
    expect(own.ok && own.header.domains).toEqual(domains);
    await call("PUT", `/api/domains/${domainId}/escrow`, { token: owner.token, body: { published: true } });
    const published = await verified((await call("GET", `/api/escrow/domains/${domainId}`)).text);
    expect(published.ok && published.header.domains).toEqual(domains);
    const other = await newUser("escrow-no-domain");
    const none = await verified((await call("GET", "/api/escrow", { token: other.token })).text);
    expect(none.ok && none.header.domains).toEqual([]);
  });

  it("leaves out a root or not-found destination the re-check blocked, in every file, as the doors no longer serve it", async () => {
    // Before the fix every file still listed a domain destination the re-check had stopped serving.
    const { owner, domainId, hostname } = await workspaceWithCodes();
    const set = await call("PATCH", `/api/domains/${domainId}`, {
      token: owner.token,
      body: { root_destination: "https://example.com/home", not_found_destination: "https://example.com/lost" },
    });
    expect(set.status, set.text).toBe(200);
    await call("PUT", `/api/domains/${domainId}/escrow`, { token: owner.token, body: { published: true } });
    const files = async () =>
      Promise.all(
        [
          call("GET", "/api/escrow", { token: owner.token }),
          call("GET", `/api/escrow/domains/${domainId}`),
          call("GET", "/api/operator/escrow", { token: OPERATOR_TOKEN }),
        ].map(async (response) => {
          const result = await verified((await response).text);
          expect(result.ok).toBe(true);
          return result.ok ? result.header.domains?.filter((domain) => domain.host === hostname) : undefined;
        }),
      );

    expect(await stopServingDestination(domainId, "root", "https://example.com/home", "blocklist: phishing", new Date())).toBe(
      true,
    );
    expect((await visit("/", { host: hostname })).status).toBe(403);
    const rootBlocked = [{ host: hostname, root_destination: null, not_found_destination: "https://example.com/lost" }];
    expect(await files()).toEqual([rootBlocked, rootBlocked, rootBlocked]);

    // Neither served: the domain is not listed at all, as a domain with neither destination is not.
    expect(await stopServingDestination(domainId, "not_found", "https://example.com/lost", "dns: policy", new Date())).toBe(true);
    expect(await files()).toEqual([[], [], []]);
    // Every code on the domain is still in the files: the block is about the domain's own redirects alone.
    const own = await verified((await call("GET", `/api/escrow/domains/${domainId}`)).text);
    expect(own.ok && own.kept.map((code) => [code.host, code.slug, code.destination])).toEqual([
      [hostname, "spring-menu", "https://example.com/custom"],
    ]);

    // Set again (through the gate), it is served and listed again.
    const again = await call("PATCH", `/api/domains/${domainId}`, {
      token: owner.token,
      body: { root_destination: "https://example.com/welcome" },
    });
    expect(again.status, again.text).toBe(200);
    const served = [{ host: hostname, root_destination: "https://example.com/welcome", not_found_destination: null }];
    expect(await files()).toEqual([served, served, served]);
  });

  it("refuses a file signed with a key the service retired before the file's snapshot time", async () => {
    const { owner } = await workspaceWithCodes();
    const text = (await call("GET", "/api/escrow", { token: owner.token })).text;
    const header = JSON.parse(text.split("\n")[0]!) as { key: { id: string }; snapshot_at: string };
    const listed = await keys();
    const retiredAt = new Date(Date.parse(header.snapshot_at) - 60_000).toISOString();
    const retired = listed.map((key) => (key.id === header.key.id ? { ...key, retired_at: retiredAt } : key));
    const result = await verifyEscrow([Buffer.from(text)], { trusted: retired });
    expect(result.ok || result.problem).toBe(
      `The file is signed by key ${header.key.id}, which the service retired at ${retiredAt}, before the snapshot's time ` +
        `(${header.snapshot_at}): a retired key signs nothing new, so whoever signed it is not the service.`,
    );
    const later = listed.map((key) =>
      key.id === header.key.id ? { ...key, retired_at: new Date(Date.parse(header.snapshot_at) + 60_000).toISOString() } : key,
    );
    expect(await verifyEscrow([Buffer.from(text)], { trusted: later })).toMatchObject({ ok: true });
  });
});
