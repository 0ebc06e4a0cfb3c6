import { resetConfig } from "@/lib/config";
import { resetSafetyChecker } from "@/lib/safety/instance";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { TEST_ZONE } from "../support/dns-server";
import { type FakeDnsServer, startFakeDnsServer } from "../support/fake-dns-server";
import { pixelsOf, solidImage } from "../support/images";
import { visit } from "../support/visits";

/** The destination's own server, on loopback as a test's must be: its name resolves to 127.0.0.1 once the link exists. */
let site: Server;
let port = 0;
let dns: FakeDnsServer;
const requests: string[] = [];
const HOST = "menu.fill-test.com";

beforeAll(async () => {
  const image = await solidImage("png", 1600, 840, "#2040d0");
  site = createServer((request, response) => {
    requests.push(`${request.url} ${request.headers["user-agent"]}`);
    if (request.url === "/spring")
      return response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html><html><head>
<title>Ignored when og:title is there</title>
<meta property="og:title" content="Spring &amp; summer menu">
<meta name="description" content="Twelve new dishes,&#10;from Thursday.">
<meta property="og:image" content="/og.png">
</head><body>${"x".repeat(1000)}</body></html>`);
    if (request.url === "/og.png") return response.writeHead(200, { "content-type": "image/png" }).end(image);
    if (request.url === "/moved") return response.writeHead(301, { location: "/spring" }).end();
    if (request.url === "/inside") return response.writeHead(302, { location: "http://169.254.169.254/latest/meta-data" }).end();
    if (request.url === "/bare") return response.writeHead(200, { "content-type": "text/html" }).end("<p>no head at all</p>");
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  port = (site.address() as AddressInfo).port;
  dns = await startFakeDnsServer({}, { a: [TEST_ZONE.publicAddress] });
  process.env.DNS_RESOLVER = dns.resolver;
  resetConfig();
  resetSafetyChecker();
});

afterAll(async () => {
  await new Promise((resolve) => site.close(resolve));
  await dns.close();
  delete process.env.WEBHOOK_PRIVATE_NETWORKS;
  resetConfig();
});

beforeEach(() => {
  // The webhook tests' rule: the operator's own network (here loopback) may be opened when named.
  process.env.WEBHOOK_PRIVATE_NETWORKS = "127.0.0.0/8";
  resetConfig();
  dns.set(HOST, { a: [TEST_ZONE.publicAddress] });
});

/** A link to the test's site, made while its name still resolves to a public address, then pointed at loopback. */
async function linkTo(user: TestUser, path: string): Promise<string> {
  dns.set(HOST, { a: [TEST_ZONE.publicAddress] });
  const created = await call("POST", "/api/links", { token: user.token, body: { destination: `http://${HOST}:${port}${path}` } });
  expect(created.status, created.text).toBe(201);
  dns.set(HOST, { a: ["127.0.0.1"] });
  return created.body.id;
}

const fill = (user: TestUser, id: string) => call("POST", `/api/links/${id}/preview/fill`, { token: user.token });

describe("filling a preview from the destination", () => {
  it("fetches the page once, at the customer's request, and takes its title, description and image", async () => {
    const user = await newUser("fill");
    const id = await linkTo(user, "/moved");
    requests.length = 0;
    const filled = await fill(user, id);
    expect(filled.status, filled.text).toBe(200);
    expect(filled.body.preview).toMatchObject({
      title: "Spring & summer menu",
      description: "Twelve new dishes, from Thursday.",
      image_url: expect.stringMatching(new RegExp(`/api/links/${id}/preview/image\\?v=`)),
    });
    expect(requests).toEqual([
      expect.stringMatching(/^\/moved Permalink-Preview\/1/),
      expect.stringMatching(/^\/spring Permalink-Preview\/1/),
      expect.stringMatching(/^\/og\.png Permalink-Preview\/1/),
    ]);
    // The image went through the upload pipeline: re-encoded within 1200×1200.
    const url = new URL(filled.body.preview.image_url);
    const image = await call("GET", `${url.pathname}${url.search}`);
    expect([image.status, image.headers.get("content-type")]).toEqual([200, "image/jpeg"]);
    const pixels = await pixelsOf(image.bytes);
    expect([pixels.width, pixels.height]).toEqual([1200, 630]);
    // Never on a visit: a visit to the link fetches nothing.
    requests.length = 0;
    const short = new URL((await call("GET", `/api/links/${id}`, { token: user.token })).body.short_url);
    // (Its live check finds the name internal now and blocks the link: that too fetches nothing.)
    await visit(short.pathname, { host: short.host });
    expect(requests).toEqual([]);
  });

  it("refuses an internal address, a redirect inside, and a page with nothing to take, changing nothing", async () => {
    const user = await newUser("fill-refusals");
    const inside = await linkTo(user, "/inside");
    const redirected = await fill(user, inside);
    expect([redirected.status, redirected.body.error]).toEqual([
      422,
      expect.stringMatching(
        /^The page redirected to an address that may not be opened: .*cloud metadata endpoint.* Nothing was changed\.$/,
      ),
    ]);
    const bare = await linkTo(user, "/bare");
    const empty = await fill(user, bare);
    expect([empty.status, empty.body.error]).toEqual([
      422,
      "The destination's page has no title, description or image to fill the preview from. Nothing was changed.",
    ]);
    const missing = await fill(user, await linkTo(user, "/gone"));
    expect([missing.status, missing.body.error]).toEqual([422, "The destination answered 404. Nothing was changed."]);
    // Without the operator's network, loopback is as internal as any private address.
    delete process.env.WEBHOOK_PRIVATE_NETWORKS;
    resetConfig();
    const spring = await linkTo(user, "/spring");
    const internal = await fill(user, spring);
    expect([internal.status, internal.body.error]).toEqual([
      422,
      "The destination's address is internal or private, so its page is not fetched. Nothing was changed.",
    ]);
    expect((await call("GET", `/api/links/${spring}`, { token: user.token })).body.preview).toBeNull();
  });
});
