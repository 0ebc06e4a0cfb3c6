import { db } from "@/lib/db/client";
import { randomString } from "@/lib/db/random";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { createHash } from "node:crypto";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser } from "../support/api";
import { cancelThroughPortal } from "../support/billing";
import { colourAt, pixelsOf, pngBomb, solidImage } from "../support/images";

type Caller = { token: string; headers?: Record<string, string> };

const MIB = 1024 * 1024;
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

async function createLink(caller: Caller): Promise<{ id: string }> {
  const response = await call("POST", "/api/links", {
    ...caller,
    body: { destination: `https://example.com/${randomString(SLUG_ALPHABET, 8)}` },
  });
  expect(response.status).toBe(201);
  return response.body;
}

const put = (caller: Caller, path: string, image: Uint8Array, type: string, headers: Record<string, string> = {}) =>
  call("PUT", path, { ...caller, rawBody: image, headers: { ...caller.headers, "content-type": type, ...headers } });

const cleanSvg = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="24"><rect width="48" height="24" fill="#2040d0"/></svg>',
);

describe.each([
  ["a link's logo", async (caller: Caller) => `/api/links/${(await createLink(caller)).id}/logo`],
  ["the workspace's default logo", async () => "/api/workspaces/logo"],
])("%s", (_name, pathFor) => {
  it.each([
    ["a PNG", "image/png", () => solidImage("png", 640, 480, "#2040d0"), [640, 480]],
    ["a JPEG", "image/jpeg", () => solidImage("jpeg", 2048, 1024, "#2040d0"), [1024, 512]],
    ["a WebP", "image/webp", () => solidImage("webp", 300, 300, "#2040d0"), [300, 300]],
    ["a clean SVG", "image/svg+xml", async () => cleanSvg, [1024, 512]],
  ] as const)(
    "accepts %s, stores it as a PNG of at most 1024×1024 and hands it back with ETag and Cache-Control",
    async (_kind, type, make, [width, height]) => {
      const user = await newUser("logo");
      const path = await pathFor(user);
      const uploaded = await put(user, path, await make(), type);
      expect(uploaded.status).toBe(200);
      expect(uploaded.body).toEqual({ logo: { content_type: "image/png", width, height, bytes: expect.any(Number) } });

      const downloaded = await call("GET", path, user);
      expect(downloaded.status).toBe(200);
      expect(downloaded.headers.get("content-type")).toBe("image/png");
      expect(downloaded.headers.get("cache-control")).toBe("private, no-cache");
      expect(downloaded.bytes.subarray(0, 8)).toEqual(PNG_MAGIC);
      expect(downloaded.bytes.length).toBe(uploaded.body.logo.bytes);
      expect(downloaded.headers.get("etag")).toBe(`"${createHash("sha256").update(downloaded.bytes).digest("hex")}"`);
      const pixels = await pixelsOf(downloaded.bytes);
      expect([pixels.width, pixels.height]).toEqual([width, height]);
      const [red, green, blue] = colourAt(pixels, Math.floor(width / 2), Math.floor(height / 2));
      expect(Math.abs(red - 0x20) + Math.abs(green - 0x40) + Math.abs(blue - 0xd0)).toBeLessThan(16);

      const revalidated = await call("GET", path, { ...user, headers: { "if-none-match": downloaded.headers.get("etag")! } });
      expect(revalidated.status).toBe(304);
    },
  );

  it("answers 404 with a sentence when there is none, and DELETE removes it (204, also when already gone)", async () => {
    const user = await newUser("logo");
    const path = await pathFor(user);
    const missing = await call("GET", path, user);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: expect.stringMatching(/has no (default )?logo/) });
    await put(user, path, await solidImage("png", 10, 10, "#000000"), "image/png");
    expect((await call("GET", path, user)).status).toBe(200);
    expect((await call("DELETE", path, user)).status).toBe(204);
    expect((await call("GET", path, user)).status).toBe(404);
    expect((await call("DELETE", path, user)).status).toBe(204);
  });

  it.each([
    [
      "a PNG claimed as a JPEG",
      () => solidImage("png", 10, 10, "#000000"),
      "image/jpeg",
      415,
      /is a PNG, not the image\/jpeg its Content-Type claims/,
    ],
    [
      "bytes that are no image",
      async () => Buffer.from("GIF89a? no, just text"),
      "image/png",
      415,
      /not a complete, readable image\/png image/,
    ],
    [
      "an unsupported type",
      () =>
        sharp({ create: { width: 4, height: 4, channels: 3, background: "#000" } })
          .gif()
          .toBuffer(),
      "image/gif",
      415,
      /image\/png, image\/jpeg, image\/webp, image\/svg\+xml/,
    ],
    ["a decompression bomb", async () => pngBomb(20_000), "image/png", 413, /20000×20000 pixels .* at most 25 megapixels/],
    [
      "an SVG with a script",
      async () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      "image/svg+xml",
      422,
      /^The SVG uses scripts \(<script>\), which a logo does not need/,
    ],
    [
      "an SVG with a filter chain",
      async () =>
        Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg"><filter id="f"><feTurbulence numOctaves="10"/></filter><rect filter="url(#f)"/></svg>',
        ),
      "image/svg+xml",
      422,
      /^The SVG uses filters \(<filter>\)/,
    ],
    [
      "an SVG embedding an 11000×11000 PNG",
      async () =>
        Buffer.from(
          `<svg xmlns="http://www.w3.org/2000/svg"><image href="data:image/png;base64,${pngBomb(11_000).toString("base64")}"/></svg>`,
        ),
      "image/svg+xml",
      413,
      /embeds an image of 11000×11000 pixels/,
    ],
    [
      "an SVG referring outside itself",
      async () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><image href="https://tracker.example/p.png"/></svg>'),
      "image/svg+xml",
      422,
      /refers to something outside the file \(href="https:\/\/tracker.example\/p.png"\)/,
    ],
    ["an empty body", async () => Buffer.alloc(0), "image/png", 400, /empty/],
  ] as const)("refuses %s and keeps the stored logo", async (_kind, make, type, status, message) => {
    const user = await newUser("logo");
    const path = await pathFor(user);
    await put(user, path, await solidImage("png", 20, 20, "#2040d0"), "image/png");
    const before = (await call("GET", path, user)).headers.get("etag");
    const refused = await put(user, path, await make(), type);
    expect(refused.status).toBe(status);
    expect(refused.body).toEqual({ error: expect.stringMatching(message) });
    expect((await call("GET", path, user)).headers.get("etag")).toBe(before);
  });

  it("refuses a body over 1 MiB with 413, whether or not it declares its length", async () => {
    const user = await newUser("logo");
    const path = await pathFor(user);
    const oversized = Buffer.concat([await solidImage("png", 10, 10, "#000000"), Buffer.alloc(MIB)]);
    const declared = await put(user, path, oversized, "image/png", { "content-length": String(oversized.length) });
    expect(declared.status).toBe(413);
    expect(declared.body).toEqual({ error: "The request body is larger than 1 MiB." });
    const undeclared = await put(user, path, oversized, "image/png");
    expect(undeclared.status).toBe(413);
    expect((await call("GET", path, user)).status).toBe(404);
  });

  it("needs an active subscription to upload (402), but not to download or remove", async () => {
    const user = await newUser("lapsed");
    const path = await pathFor(user);
    await put(user, path, await solidImage("png", 20, 20, "#2040d0"), "image/png");
    await cancelThroughPortal(user);

    const refused = await put(user, path, await solidImage("png", 20, 20, "#d02020"), "image/png");
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatch(
      /no active subscription, so it cannot edit links\. Subscribe with POST \/api\/billing\/checkout/,
    );
    expect(refused.body.pay).toEqual(["subscribe"]);

    const downloaded = await call("GET", path, user);
    expect(downloaded.status).toBe(200);
    expect(colourAt(await pixelsOf(downloaded.bytes), 10, 10)).toEqual([0x20, 0x40, 0xd0, 255]);
    expect((await call("DELETE", path, user)).status).toBe(204);
  });

  it("keeps one whole logo after concurrent uploads", async () => {
    const user = await newUser("logo");
    const path = await pathFor(user);
    const colours = ["#ff0000", "#00ff00", "#0000ff", "#ffff00", "#00ffff", "#ff00ff"];
    const responses = await Promise.all(
      colours.map(async (colour) => put(user, path, await solidImage("png", 100, 100, colour), "image/png")),
    );
    expect(responses.every((response) => response.status === 200)).toBe(true);
    const stored = await call("GET", path, user);
    const pixel = colourAt(await pixelsOf(stored.bytes), 50, 50);
    const hex = `#${pixel
      .slice(0, 3)
      .map((channel) => channel.toString(16).padStart(2, "0"))
      .join("")}`;
    expect(colours).toContain(hex);
    expect(stored.headers.get("etag")).toBe(`"${createHash("sha256").update(stored.bytes).digest("hex")}"`);
  });
});

describe("who may change logos", () => {
  it("lets a member set the logo of a link they created, not of another's, nor the workspace default; admins and the key may", async () => {
    const owner = await newUser("owner");
    const ownersLink = await createLink(owner);
    const asMember = await joinWorkspace(await newUser("member"), owner.workspaceId, "member");
    const asAdmin = await joinWorkspace(await newUser("admin"), owner.workspaceId, "admin");
    const apiKey = (await call("POST", "/api/billing/claim", owner)).body.api_key;
    const membersLink = await createLink(asMember);
    const image = await solidImage("png", 20, 20, "#2040d0");

    expect((await put(asMember, `/api/links/${membersLink.id}/logo`, image, "image/png")).status).toBe(200);
    const othersLink = await put(asMember, `/api/links/${ownersLink.id}/logo`, image, "image/png");
    expect(othersLink.status).toBe(403);
    expect(othersLink.body.error).toMatch(/only the links you created/);
    expect((await call("DELETE", `/api/links/${ownersLink.id}/logo`, asMember)).status).toBe(403);
    const workspaceDefault = await put(asMember, "/api/workspaces/logo", image, "image/png");
    expect(workspaceDefault.status).toBe(403);
    expect(workspaceDefault.body.error).toMatch(/default logo/);
    expect((await call("DELETE", "/api/workspaces/logo", asMember)).status).toBe(403);

    expect((await put(asAdmin, `/api/links/${ownersLink.id}/logo`, image, "image/png")).status).toBe(200);
    expect((await put(asAdmin, "/api/workspaces/logo", image, "image/png")).status).toBe(200);
    expect((await put({ token: apiKey }, "/api/workspaces/logo", image, "image/png")).status).toBe(200);

    expect((await call("GET", `/api/links/${ownersLink.id}/logo`, asMember)).status).toBe(200);
    expect((await call("GET", "/api/workspaces/logo", asMember)).status).toBe(200);
    const workspaceLogo = await db().workspaceLogo.findUniqueOrThrow({
      where: { workspaceId: owner.workspaceId },
      select: { width: true },
    });
    expect(workspaceLogo.width).toBe(20);
  });

  it("never reaches another workspace's link (404) and needs credentials (401)", async () => {
    const owner = await newUser("owner");
    const link = await createLink(owner);
    const stranger = await newUser("stranger");
    const image = await solidImage("png", 20, 20, "#2040d0");
    expect((await put(stranger, `/api/links/${link.id}/logo`, image, "image/png")).status).toBe(404);
    expect((await call("GET", `/api/links/${link.id}/logo`, stranger)).status).toBe(404);
    expect(
      (await call("PUT", `/api/links/${link.id}/logo`, { rawBody: image, headers: { "content-type": "image/png" } })).status,
    ).toBe(401);
    expect((await call("GET", "/api/workspaces/logo")).status).toBe(401);
  });
});

describe("logo renders are shared fairly between workspaces", () => {
  it("serves another workspace's upload while one workspace's uploads fill the line", async () => {
    const [busy, neighbour] = await Promise.all([newUser("logo-flood"), newUser("logo-neighbour")]);
    const image = await solidImage("png", 1000, 1000, "#2040d0");
    let refusedOnce: () => void = () => {};
    const lineFull = new Promise<void>((resolve) => (refusedOnce = resolve));
    const flood = Array.from({ length: 12 }, async () => {
      const answer = await put(busy, "/api/workspaces/logo", image, "image/png");
      if (answer.status === 429) refusedOnce();
      return answer.status;
    });
    await lineFull;
    const own = await put(neighbour, "/api/workspaces/logo", image, "image/png");
    expect(own.status, own.text).toBe(200);
    const statuses = await Promise.all(flood);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(3);
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
  }, 120_000);
});
