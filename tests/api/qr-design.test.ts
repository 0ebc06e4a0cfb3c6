import { randomString } from "@/lib/db/random";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { describe, expect, it } from "vitest";
import { call, joinWorkspace, newUser } from "../support/api";
import { cancelThroughPortal } from "../support/billing";
import { colourAt, decodeQr, pixelsOf, solidImage } from "../support/images";

type Caller = { token: string; headers?: Record<string, string> };
type Link = { id: string; short_url: string };

async function createLink(caller: Caller): Promise<Link> {
  const destination = `https://example.com/${randomString(SLUG_ALPHABET, 8)}`;
  const response = await call("POST", "/api/links", { ...caller, body: { destination } });
  expect(response.status).toBe(201);
  return response.body;
}

const design = (caller: Caller, link: Link) => call("GET", `/api/links/${link.id}/qr-design`, caller);
const saveDesign = (caller: Caller, link: Link, body: unknown) =>
  call("PUT", `/api/links/${link.id}/qr-design`, { ...caller, body });
const artwork = (caller: Caller, link: Link, query = "") => call("GET", `/api/links/${link.id}/qr${query}`, caller);

/** The drawing's width, its corner (background) colour and its first module's colour, read from a PNG. */
async function looks(response: { status: number; bytes: Buffer }) {
  expect(response.status).toBe(200);
  const pixels = await pixelsOf(response.bytes);
  return { width: pixels.width, corner: colourAt(pixels, 0, 0).slice(0, 3) };
}

describe("saved QR designs", () => {
  it("draws a link's saved design when the query names no option; an option in the query overrides only itself", async () => {
    const user = await newUser("design");
    const link = await createLink(user);
    expect((await design(user, link)).body).toEqual({
      size: 1024,
      margin: 2,
      fg: "#000000",
      bg: "#ffffff",
      level: null,
      logo: false,
      source: "default",
    });

    const saved = await saveDesign(user, link, { size: 300, margin: 4, fg: "#1B2A4A", bg: "#fdf6e3", level: "H" });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ size: 300, margin: 4, fg: "#1b2a4a", bg: "#fdf6e3", level: "H", logo: false, source: "link" });
    expect((await design(user, link)).body).toEqual(saved.body);

    const plain = await artwork(user, link, "?format=png");
    expect(await looks(plain)).toEqual({ width: 300, corner: [0xfd, 0xf6, 0xe3] });
    expect(await decodeQr(plain.bytes, { quietZone: 4, background: "#fdf6e3" })).toBe(`${link.short_url}?qr`);
    const svg = await artwork(user, link);
    expect(svg.text).toMatch(/^<svg [^>]*width="300"/);
    expect(svg.text).toContain("#1b2a4a");

    expect(await looks(await artwork(user, link, "?format=png&size=200"))).toEqual({ width: 200, corner: [0xfd, 0xf6, 0xe3] });
    expect(await looks(await artwork(user, link, "?format=png&bg=%23ffffff"))).toEqual({ width: 300, corner: [255, 255, 255] });
    expect(plain.headers.get("etag")).not.toBe(
      (await artwork(user, link, "?format=png&size=1024&margin=2&bg=%23ffffff")).headers.get("etag"),
    );
  });

  it("uses the workspace's default for links without their own, and forgetting a link's design goes back to it", async () => {
    const owner = await newUser("default");
    const [first, second] = [await createLink(owner), await createLink(owner)];
    const saved = await call("PUT", "/api/workspaces/qr-design", { ...owner, body: { size: 256, bg: "#e8f5e9", fg: "#0b5d1e" } });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ size: 256, margin: 2, bg: "#e8f5e9", source: "workspace" });
    expect((await call("GET", "/api/workspaces/qr-design", owner)).body).toEqual(saved.body);

    expect((await design(owner, first)).body).toEqual(saved.body);
    expect(await looks(await artwork(owner, second, "?format=png"))).toEqual({ width: 256, corner: [0xe8, 0xf5, 0xe9] });

    expect((await saveDesign(owner, first, { size: 128 })).body).toMatchObject({ size: 128, bg: "#ffffff", source: "link" });
    expect(await looks(await artwork(owner, first, "?format=png"))).toEqual({ width: 128, corner: [255, 255, 255] });
    expect(await looks(await artwork(owner, second, "?format=png"))).toEqual({ width: 256, corner: [0xe8, 0xf5, 0xe9] });

    const forgotten = await call("DELETE", `/api/links/${first.id}/qr-design`, owner);
    expect(forgotten.status).toBe(200);
    expect(forgotten.body).toEqual(saved.body);
    expect(await looks(await artwork(owner, first, "?format=png"))).toEqual({ width: 256, corner: [0xe8, 0xf5, 0xe9] });
    expect((await call("DELETE", `/api/links/${first.id}/qr-design`, owner)).body).toEqual(saved.body);
  });

  it("refuses what the download refuses, with the same sentences, and keeps the previous design", async () => {
    const user = await newUser("refusals");
    const link = await createLink(user);
    await saveDesign(user, link, { size: 512 });
    for (const [body, message] of [
      [{ size: 10 }, /request body field "size" is invalid: must be at least 64/],
      [{ size: 100.5 }, /"size" is invalid: must be a whole number/],
      [{ margin: 17 }, /"margin" is invalid: must be at most 16/],
      [{ fg: "red" }, /"fg" is invalid: must be a colour written #rrggbb/],
      [{ level: "X" }, /"level" is invalid: must be L, M, Q or H/],
      [{ logo: "yes" }, /"logo" is invalid: must be true or false/],
      [{ format: "png" }, /does not accept: format/],
      [{ fg: "#ffffff", bg: "#000000" }, /^The foreground #ffffff is lighter than the background #000000/],
      [{ fg: "#aaaaaa" }, /contrast ratio of 2\.32:1; a code needs at least 3:1/],
    ] as const) {
      const response = await saveDesign(user, link, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body).toEqual({ error: expect.stringMatching(message) });
    }
    expect((await call("PUT", "/api/workspaces/qr-design", { ...user, body: { bg: "#555555" } })).status).toBe(400);
    expect((await design(user, link)).body).toMatchObject({ size: 512, source: "link" });
  });

  it("draws a saved logo when one exists and leaves it out when none does; a logo asked in the query must exist", async () => {
    const user = await newUser("design-logo");
    const link = await createLink(user);
    expect((await saveDesign(user, link, { logo: true, size: 400 })).status).toBe(200);

    const withoutLogo = await artwork(user, link, "?format=png");
    expect(await looks(withoutLogo)).toEqual({ width: 400, corner: [255, 255, 255] });
    expect(await decodeQr(withoutLogo.bytes)).toBe(`${link.short_url}?qr`);
    expect((await artwork(user, link, "?logo=true")).status).toBe(404);

    const logo = await call("PUT", "/api/workspaces/logo", {
      ...user,
      rawBody: await solidImage("png", 200, 200, "#20c040"),
      headers: { "content-type": "image/png" },
    });
    expect(logo.status).toBe(200);
    const withLogo = await artwork(user, link, "?format=png");
    const pixels = await pixelsOf(withLogo.bytes);
    expect(colourAt(pixels, 200, 200).slice(0, 3)).toEqual([0x20, 0xc0, 0x40]);
    expect(await decodeQr(withLogo.bytes)).toBe(`${link.short_url}?qr`);
    expect(withLogo.headers.get("etag")).not.toBe(withoutLogo.headers.get("etag"));
    const plainAgain = await artwork(user, link, "?format=png&logo=false");
    expect(plainAgain.headers.get("etag")).toBe(withoutLogo.headers.get("etag"));
  });

  it("lets readers read, creators restyle their own links, managers every link and the default; no subscription needed", async () => {
    const owner = await newUser("design-owner");
    const member = await joinWorkspace(await newUser("design-member"), owner.workspaceId, "member");
    const viewer = await joinWorkspace(await newUser("design-viewer"), owner.workspaceId, "viewer");
    const ownersLink = await createLink(owner);
    const membersLink = await createLink(member);

    expect((await design(viewer, ownersLink)).status).toBe(200);
    expect((await saveDesign(viewer, ownersLink, {})).status).toBe(403);
    expect((await saveDesign(member, ownersLink, {})).status).toBe(403);
    expect((await saveDesign(member, membersLink, { margin: 0 })).status).toBe(200);
    expect((await call("PUT", "/api/workspaces/qr-design", { ...member, body: {} })).status).toBe(403);
    const stranger = await newUser("design-stranger");
    expect((await design(stranger, ownersLink)).status).toBe(404);
    expect((await saveDesign(stranger, ownersLink, {})).status).toBe(404);

    await cancelThroughPortal(owner);
    expect((await saveDesign(owner, ownersLink, { size: 256 })).status).toBe(200);
    expect((await call("PUT", "/api/workspaces/qr-design", { ...owner, body: { margin: 3 } })).status).toBe(200);
  });
});
