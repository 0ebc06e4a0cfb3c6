import { scanBuffer } from "@/lib/analytics/scans";
import { db } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { forgetVerifiedHosts } from "@/lib/domains/verified-hosts";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { artworkCache } from "@/lib/qr/service";
import { resetResolutionRuntime } from "@/lib/resolution/runtime";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser } from "../support/api";
import { cancelThroughPortal } from "../support/billing";
import { colourAt, decodeQr, pixelsOf, solidImage } from "../support/images";
import { visit } from "../support/visits";

type Caller = { token: string; headers?: Record<string, string> };
type Link = { id: string; slug: string; short_url: string; destination: string };

async function createLink(
  caller: Caller,
  body: Record<string, unknown> = { destination: `https://example.com/${randomString(SLUG_ALPHABET, 8)}` },
): Promise<Link> {
  const response = await call("POST", "/api/links", { ...caller, body });
  expect(response.status).toBe(201);
  return response.body;
}

/** Each link's reads come from a network of their own unless a test names one: the per-network budgets stay per test. */
const networkOf = (link: { id: string }) =>
  `198.18.${link.id.charCodeAt(link.id.length - 1)}.${link.id.charCodeAt(link.id.length - 2)}`;

const artwork = (caller: Caller, link: { id: string }, query = "", headers: Record<string, string> = {}) =>
  call("GET", `/api/links/${link.id}/qr${query}`, {
    ...caller,
    headers: { "x-forwarded-for": networkOf(link), ...caller.headers, ...headers },
  });

const putLogo = (caller: Caller, path: string, image: Buffer, type = "image/png") =>
  call("PUT", path, { ...caller, rawBody: image, headers: { ...caller.headers, "content-type": type } });

/** A phone's camera app opening the code: a person scanning, not a bot. */
const PHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

/** Visits what a code decodes to, on the host it names, and returns the answer and the scan it recorded. */
async function scan(decoded: string, link: { id: string }) {
  const url = new URL(decoded);
  const before = await db().scanEvent.count({ where: { linkId: link.id } });
  const answer = await visit(`${url.pathname}${url.search}`, { host: url.host, headers: { "User-Agent": PHONE } });
  await scanBuffer().flush();
  const events = await db().scanEvent.findMany({ where: { linkId: link.id }, orderBy: { id: "asc" } });
  expect(events).toHaveLength(before + 1);
  return { answer, event: events.at(-1)! };
}

beforeEach(() => resetResolutionRuntime());
afterEach(() => forgetVerifiedHosts());

describe("GET /api/links/{id}/qr", () => {
  it("answers SVG or PNG (format=png) of the short URL with the scan marker; its scan redirects and counts as a QR scan", async () => {
    const user = await newUser("qr");
    const link = await createLink(user);

    const svg = await artwork(user, link);
    expect(svg.status).toBe(200);
    expect(svg.headers.get("content-type")).toBe("image/svg+xml");
    expect(svg.headers.get("content-disposition")).toBe(`attachment; filename="qr-${link.slug}.svg"`);
    expect(svg.headers.get("cache-control")).toBe("private, no-cache");
    expect(svg.headers.get("etag")).toMatch(/^"[0-9a-f]{64}"$/);
    expect(svg.text).toMatch(/^<svg [^>]*width="1024"/);
    expect(await decodeQr(svg.bytes)).toBe(`${link.short_url}?qr`);

    const png = await artwork(user, link, "?format=png&size=300&fg=%23123456&bg=%23fafafa&level=H&margin=4");
    expect(png.status).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(png.headers.get("content-disposition")).toBe(`attachment; filename="qr-${link.slug}.png"`);
    const pixels = await pixelsOf(png.bytes);
    expect([pixels.width, pixels.height]).toEqual([300, 300]);
    expect(colourAt(pixels, 1, 1)).toEqual([0xfa, 0xfa, 0xfa, 255]);
    const decoded = await decodeQr(png.bytes);
    expect(decoded).toBe(`${link.short_url}?qr`);

    const { answer, event } = await scan(decoded!, link);
    expect(answer.status).toBe(302);
    expect(answer.headers.Location).toBe(link.destination);
    expect(event).toMatchObject({ viaQr: true, host: "s.test.example", userAgent: PHONE, bot: false });
    const click = await visit(`/${link.slug}`);
    expect(click.status).toBe(302);
    await scanBuffer().flush();
    expect(
      (await db().scanEvent.findMany({ where: { linkId: link.id }, orderBy: { id: "asc" } })).map((row) => row.viaQr),
    ).toEqual([true, false]);
  });

  it("encodes a custom-domain link's own host", async () => {
    const user = await newUser("domain");
    const hostname = `go-${user.userId.toLowerCase()}.example.org`;
    const domain = await db().domain.create({
      data: { id: newId("dom"), workspaceId: user.workspaceId, hostname, verifiedAt: new Date() },
    });
    const link = await createLink(user, {
      destination: "https://example.com/on-domain",
      slug: `menu-${randomString(SLUG_ALPHABET, 6)}`,
      domain_id: domain.id,
    });
    expect(link.short_url).toBe(`https://${hostname}/${link.slug}`);

    expect((await putLogo(user, "/api/workspaces/logo", await solidImage("png", 200, 200, "#20c040"))).status).toBe(200);
    for (const format of ["svg", "png"]) {
      const response = await artwork(user, link, `?format=${format}`);
      expect(response.headers.get("content-disposition")).toBe(`attachment; filename="qr-${hostname}-${link.slug}.${format}"`);
      expect(await decodeQr(response.bytes)).toBe(`https://${hostname}/${link.slug}?qr`);
      expect(await decodeQr((await artwork(user, link, `?format=${format}&logo=true`)).bytes)).toBe(
        `https://${hostname}/${link.slug}?qr`,
      );
    }
    const { answer, event } = await scan(`https://${hostname}/${link.slug}?qr`, link);
    expect(answer.headers.Location).toBe("https://example.com/on-domain");
    expect(event).toMatchObject({ viaQr: true, host: hostname });
  });

  it.each(["svg", "png"])(
    "decodes every %s variant (each level, with and without the logo, default and own colours) to " +
      "the short URL with the marker, and each scan of it counts as a QR scan",
    async (format) => {
      const user = await newUser(`variants-${format}`);
      const link = await createLink(user);
      expect((await putLogo(user, `/api/links/${link.id}/logo`, await solidImage("png", 200, 200, "#d02020"))).status).toBe(200);
      let variants = 0;
      for (const level of ["L", "M", "Q", "H"]) {
        for (const logo of ["", "&logo=true"]) {
          for (const colours of ["", "&fg=%23123456&bg=%23fafafa", "&fg=%23003300&bg=%23ffe066"]) {
            const query = `?format=${format}&size=400&level=${level}${logo}${colours}`;
            const response = await artwork(user, link, query);
            expect(response.status, query).toBe(200);
            const decoded = await decodeQr(response.bytes);
            expect(decoded, query).toBe(`${link.short_url}?qr`);
            const { answer, event } = await scan(decoded!, link);
            expect([answer.status, answer.headers.Location, event.viaQr], query).toEqual([302, link.destination, true]);
            variants++;
          }
        }
      }
      const bySource = await call("GET", `/api/analytics?link_id=${link.id}&group_by=source`, user);
      expect(bySource.body.data).toEqual([{ key: "qr", scans: variants, uniques: 1 }]);
    },
  );

  it("answers a matching If-None-Match with 304, and gives each drawing its own ETag", async () => {
    const user = await newUser("etag");
    const link = await createLink(user);
    const first = await artwork(user, link, "?format=png");
    const etag = first.headers.get("etag")!;
    const again = await artwork(user, link, "?format=png", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect(again.headers.get("etag")).toBe(etag);
    expect((await artwork(user, link, "?format=png")).headers.get("etag")).toBe(etag);
    expect((await artwork(user, link, "?format=png&size=512")).headers.get("etag")).not.toBe(etag);
    expect((await artwork(user, link, "?format=png&size=512", { "if-none-match": etag })).status).toBe(200);
  });

  it.each([
    ["?size=10", /query string field "size" is invalid: must be at least 64/],
    ["?size=5000", /must be at most 4096/],
    ["?margin=17", /"margin"/],
    ["?fg=red", /"fg" is invalid: must be a colour written #rrggbb/],
    ["?level=X", /"level"/],
    ["?format=gif", /"format"/],
    ["?logo=yes", /"logo"/],
    ["?colour=%23000000", /does not accept: colour/],
    ["?fg=%23ffffff&bg=%23000000", /^The foreground #ffffff is lighter than the background #000000/],
    ["?fg=%23aaaaaa&bg=%23ffffff", /contrast ratio of 2\.32:1; a code needs at least 3:1/],
  ])("refuses %s with 400 and a sentence", async (query, message) => {
    const user = await newUser("options");
    const response = await artwork(user, await createLink(user), query);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: expect.stringMatching(message) });
  });

  it("places the link's logo, else the workspace's default, and says so when there is neither", async () => {
    const user = await newUser("logo");
    const link = await createLink(user);

    const none = await artwork(user, link, "?logo=true");
    expect(none.status).toBe(404);
    expect(none.body.error).toMatch(/^Neither this link nor its workspace has a logo/);

    expect((await putLogo(user, "/api/workspaces/logo", await solidImage("png", 200, 200, "#20c040"))).status).toBe(200);
    expect(await centreOf(await artwork(user, link, "?logo=true&format=png"))).toEqual([0x20, 0xc0, 0x40]);

    expect(
      (await putLogo(user, `/api/links/${link.id}/logo`, await solidImage("jpeg", 300, 200, "#d02020"), "image/jpeg")).status,
    ).toBe(200);
    const withOwn = await artwork(user, link, "?logo=true&format=png&level=L");
    expect(await decodeQr(withOwn.bytes)).toBe(`${link.short_url}?qr`);
    const [red, green, blue] = (await centreOf(withOwn))!;
    expect(Math.abs(red - 0xd0) + Math.abs(green - 0x20) + Math.abs(blue - 0x20)).toBeLessThan(16);

    const svg = await artwork(user, link, "?logo=true");
    expect(svg.text).toContain('href="data:image/png;base64,');
    expect(await decodeQr(svg.bytes)).toBe(`${link.short_url}?qr`);

    expect((await call("DELETE", `/api/links/${link.id}/logo`, user)).status).toBe(204);
    expect(await centreOf(await artwork(user, link, "?logo=true&format=png"))).toEqual([0x20, 0xc0, 0x40]);
  });

  it("changes the ETag of the logo artwork when the logo changes", async () => {
    const user = await newUser("logo-etag");
    const link = await createLink(user);
    await putLogo(user, `/api/links/${link.id}/logo`, await solidImage("png", 100, 100, "#2040d0"));
    const before = (await artwork(user, link, "?logo=true")).headers.get("etag")!;
    expect((await artwork(user, link, "?logo=true", { "if-none-match": before })).status).toBe(304);
    await putLogo(user, `/api/links/${link.id}/logo`, await solidImage("png", 100, 100, "#d02040"));
    const after = await artwork(user, link, "?logo=true", { "if-none-match": before });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(before);
  });

  it("is open to every role that can read the link, and to no one else", async () => {
    const owner = await newUser("owner");
    const link = await createLink(owner);
    const asMember = await joinWorkspace(await newUser("member"), owner.workspaceId, "member");
    const asAdmin = await joinWorkspace(await newUser("admin"), owner.workspaceId, "admin");
    const apiKey = (await call("POST", "/api/billing/claim", owner)).body.api_key;
    for (const caller of [asMember, asAdmin, { token: apiKey }]) {
      const response = await artwork(caller, link, "?format=png");
      expect(response.status).toBe(200);
      expect(await decodeQr(response.bytes)).toBe(`${link.short_url}?qr`);
    }
    const stranger = await newUser("stranger");
    expect((await artwork(stranger, link)).status).toBe(404);
    expect((await artwork({ token: stranger.token, headers: { "x-workspace-id": owner.workspaceId } }, link)).status).toBe(401);
    expect((await call("GET", `/api/links/${link.id}/qr`)).status).toBe(401);
  });

  it("stays available, logo included, after the subscription ends", async () => {
    const user = await newUser("lapsed");
    const link = await createLink(user);
    await putLogo(user, `/api/links/${link.id}/logo`, await solidImage("webp", 200, 200, "#2040d0"), "image/webp");
    await cancelThroughPortal(user);
    expect((await call("POST", "/api/links", { ...user, body: { destination: "https://example.com/new" } })).status).toBe(402);

    const response = await artwork(user, link, "?logo=true&format=png");
    expect(response.status).toBe(200);
    expect(await decodeQr(response.bytes)).toBe(`${link.short_url}?qr`);
  });
});

async function centreOf(response: { status: number; bytes: Buffer }): Promise<[number, number, number] | null> {
  expect(response.status).toBe(200);
  const pixels = await pixelsOf(response.bytes);
  const [red, green, blue] = colourAt(pixels, Math.floor(pixels.width / 2), Math.floor(pixels.height / 2));
  return [red, green, blue];
}

describe("QR reads are metered", () => {
  /** Reads the artwork `times` times from `network`, in parallel batches, and returns the statuses. */
  async function readMany(caller: Caller, link: Link, times: number, network: string): Promise<number[]> {
    const statuses: number[] = [];
    for (let done = 0; done < times; done += 20) {
      const batch = Array.from({ length: Math.min(20, times - done) }, () =>
        artwork(caller, link, "", { "x-forwarded-for": network }),
      );
      statuses.push(...(await Promise.all(batch)).map((answer) => answer.status));
    }
    return statuses;
  }

  it("draws each design of a link once and answers the next reads from a bounded cache", async () => {
    const user = await newUser("qr-cache");
    const link = await createLink(user);
    const first = await artwork(user, link, "?format=png&size=512", { "x-forwarded-for": "192.0.2.10" });
    const etag = first.headers.get("etag")!;
    expect(artworkCache().has(etag)).toBe(true);
    const second = await artwork(user, link, "?format=png&size=512", { "x-forwarded-for": "192.0.2.10" });
    expect(second.bytes.equals(first.bytes)).toBe(true);
    expect(artworkCache().maxSize).toBeGreaterThan(0);
  });

  it("draws artwork once for everyone asking at once", async () => {
    const user = await newUser("qr-drawings");
    const link = await createLink(user);
    const network = { "x-forwarded-for": "192.0.2.77" };
    const together = await Promise.all(Array.from({ length: 20 }, () => artwork(user, link, "?format=png&size=2048", network)));
    expect(together.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    expect(together.every((answer) => answer.bytes.equals(together[0]!.bytes))).toBe(true);
  }, 60_000);

  it("weighs reads and new drawings by their pixels: 4096-pixel PNGs are refused long before 256-pixel SVGs", async () => {
    const [big, small] = await Promise.all([newUser("qr-weight-big"), newUser("qr-weight-small")]);
    const [bigLink, smallLink] = await Promise.all([createLink(big), createLink(small)]);
    const bigNetwork = { "x-forwarded-for": "192.0.2.91" };

    // A new 4096-pixel PNG drawing weighs 64 drawings of 512 × 512 pixels: two a minute for a credential.
    const drawn = [];
    for (const margin of [1, 2, 3]) drawn.push(await artwork(big, bigLink, `?format=png&size=4096&margin=${margin}`, bigNetwork));
    expect(drawn.map((answer) => answer.status)).toEqual([200, 200, 429]);
    expect(drawn[2]!.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(drawn[2]!.body.error).toMatch(/^Too many new QR code drawings this minute with this credential/);

    // Read again from the cache, it still weighs 16 reads of the default drawing: seven a minute in all.
    const again = [];
    for (let read = 0; read < 5; read++)
      again.push((await artwork(big, bigLink, "?format=png&size=4096&margin=1", bigNetwork)).status);
    expect(again).toEqual([200, 200, 200, 200, 429]);
    const refused = await artwork(big, bigLink, "?format=png&size=4096&margin=1", bigNetwork);
    expect(refused.body.error).toMatch(/^Too many QR code reads this minute with this credential/);

    // 100 new 256-pixel SVGs by one credential, each weighing one: every one drawn.
    const svgs = [];
    for (let margin = 0; margin <= 16; margin++)
      for (const size of [256, 257, 258, 259, 260, 261]) {
        if (svgs.length < 100)
          svgs.push(artwork(small, smallLink, `?size=${size}&margin=${margin}`, { "x-forwarded-for": "192.0.2.92" }));
      }
    expect((await Promise.all(svgs)).map((answer) => answer.status)).toEqual(Array(100).fill(200));
  }, 60_000);

  it("reads at most 120 a minute per credential and 300 per client network, then 429 with a sentence", async () => {
    const [first, second, third] = await Promise.all([newUser("qr-a"), newUser("qr-b"), newUser("qr-c")]);
    const links = await Promise.all([first, second, third].map((user) => createLink(user)));
    const network = "198.51.100.";
    const byFirst = await readMany(first, links[0]!, 121, `${network}1`);
    expect(byFirst.filter((status) => status === 200)).toHaveLength(120);
    const refused = await artwork(first, links[0]!, "", { "x-forwarded-for": `${network}2` });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(/^Too many QR code reads this minute with this credential/);

    expect((await readMany(second, links[1]!, 120, `${network}3`)).every((status) => status === 200)).toBe(true);
    const byThird = await readMany(third, links[2]!, 61, `${network}4`);
    expect(byThird.filter((status) => status === 200)).toHaveLength(60);
    const fromNetwork = await artwork(third, links[2]!, "", { "x-forwarded-for": `${network}5` });
    expect(fromNetwork.body.error).toMatch(/^Too many QR code reads this minute from your network/);
    expect((await artwork(third, links[2]!, "", { "x-forwarded-for": "203.0.113.9" })).status).toBe(200);
  }, 120_000);
});
