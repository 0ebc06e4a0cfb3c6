import { db } from "@/lib/db/client";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { call, newUser, type TestUser } from "../support/api";
import { colourAt, pixelsOf, pngBomb, solidImage } from "../support/images";

const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);
const preview = { title: "Spring menu", description: "Twelve new dishes, from Thursday." };

async function previewedLink(user: TestUser, extra: Record<string, unknown> = {}) {
  const created = await call("POST", "/api/links", {
    token: user.token,
    body: { destination: `https://example.com/menu-${Math.random().toString(36).slice(2)}`, preview, ...extra },
  });
  expect(created.status, created.text).toBe(201);
  return created.body as { id: string; preview: { title: string; description: string; image_url: string | null } };
}

const upload = (user: TestUser, id: string, image: Uint8Array, type: string) =>
  call("PUT", `/api/links/${id}/preview/image`, { token: user.token, rawBody: image, headers: { "content-type": type } });

/** The image's address as a crawler fetches it: path and query on the app's origin, no credentials. */
const fetchImage = (imageUrl: string, headers: Record<string, string> = {}) => {
  const url = new URL(imageUrl);
  return call("GET", `${url.pathname}${url.search}`, { headers });
};

describe("social previews", () => {
  it("are set on create and bulk create, shown in the Link view, and a new link's image_url is refused", async () => {
    const user = await newUser("preview-create");
    const link = await previewedLink(user);
    expect(link.preview).toEqual({ ...preview, image_url: null });
    const read = await call("GET", `/api/links/${link.id}`, { token: user.token });
    expect(read.body).toMatchObject({ preview: { ...preview, image_url: null }, preview_count: 0 });

    const bulk = await call("POST", "/api/links/bulk", {
      token: user.token,
      body: { links: [{ destination: "https://example.com/bulk-preview", preview: { title: "From the bulk" } }] },
    });
    expect(bulk.body.results[0]).toMatchObject({ status: 201, link: { preview: { title: "From the bulk", description: null } } });

    const withImage = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/x", preview: { title: "x", image_url: "https://elsewhere.example/a.png" } },
    });
    expect(withImage.status).toBe(400);
    expect(withImage.body.error).toMatch(/^preview\.image_url: a new link has no image yet; create the link, then upload/);
    const tooLong = await call("POST", "/api/links", {
      token: user.token,
      body: { destination: "https://example.com/x", preview: { description: "x".repeat(501) } },
    });
    expect([tooLong.status, tooLong.body.error]).toEqual([400, expect.stringMatching(/preview\.description.*at most 500/)]);
    const plain = await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/plain" } });
    expect([plain.body.preview, plain.body.preview_count]).toEqual([null, 0]);
  });

  it("take an uploaded image through the logo pipeline, served from our origin to anyone with caching", async () => {
    const user = await newUser("preview-image");
    const link = await previewedLink(user);
    const uploaded = await upload(user, link.id, await solidImage("png", 2400, 1260, "#2040d0"), "image/png");
    expect(uploaded.status, uploaded.text).toBe(200);
    const imageUrl = uploaded.body.preview.image_url as string;
    expect(imageUrl).toMatch(new RegExp(`/api/links/${link.id}/preview/image\\?v=[0-9a-f]{16}$`));
    expect(uploaded.body.preview).toMatchObject(preview);

    const image = await fetchImage(imageUrl);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/jpeg");
    expect(image.headers.get("cache-control")).toBe("public, max-age=86400");
    expect(image.bytes.subarray(0, 3)).toEqual(JPEG_MAGIC);
    const pixels = await pixelsOf(image.bytes);
    // Re-encoded within 1200×1200, its pixels kept.
    expect([pixels.width, pixels.height]).toEqual([1200, 630]);
    const [red, green, blue] = colourAt(pixels, 600, 315);
    expect(Math.abs(red - 0x20) + Math.abs(green - 0x40) + Math.abs(blue - 0xd0)).toBeLessThan(24);
    const etag = `"${createHash("sha256").update(image.bytes).digest("hex")}"`;
    expect(image.headers.get("etag")).toBe(etag);
    expect(imageUrl).toContain(`v=${etag.slice(1, 17)}`);
    expect((await fetchImage(imageUrl, { "if-none-match": etag })).status).toBe(304);
    const unversioned = await call("GET", `/api/links/${link.id}/preview/image`);
    expect([unversioned.status, unversioned.headers.get("cache-control")]).toEqual([200, "public, max-age=300"]);

    // A replaced image is a new address.
    const replaced = await upload(user, link.id, await solidImage("jpeg", 600, 315, "#d02020"), "image/jpeg");
    expect(replaced.body.preview.image_url).not.toBe(imageUrl);

    // Blocked for abuse: the service's origin serves nothing of the link, and no new image is taken.
    await db().link.update({ where: { id: link.id }, data: { status: 2 } });
    expect((await fetchImage(replaced.body.preview.image_url)).status).toBe(404);
    const refused = await upload(user, link.id, await solidImage("png", 40, 40, "#2040d0"), "image/png");
    expect([refused.status, refused.body.error]).toEqual([409, expect.stringMatching(/blocked for abuse/)]);
  });

  it("refuse what the logo pipeline refuses, keeping the image the link had", async () => {
    const user = await newUser("preview-refusals");
    const link = await previewedLink(user);
    const kept = (await upload(user, link.id, await solidImage("png", 40, 40, "#2040d0"), "image/png")).body.preview.image_url;
    const refusals: [Buffer, string, number, RegExp][] = [
      [pngBomb(20_000), "image/png", 413, /20000×20000 pixels/],
      [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), "image/svg+xml", 422, /scripts/],
      [await solidImage("png", 10, 10, "#000000"), "image/jpeg", 415, /is a PNG, not the image\/jpeg/],
      [Buffer.from("GIF89a"), "image/gif", 415, /image\/png, image\/jpeg, image\/webp, image\/svg\+xml/],
      [Buffer.alloc(0), "image/png", 400, /empty/],
    ];
    for (const [bytes, type, status, message] of refusals) {
      const refused = await upload(user, link.id, bytes, type);
      expect([type, refused.status, refused.body.error]).toEqual([type, status, expect.stringMatching(message)]);
    }
    expect((await call("GET", `/api/links/${link.id}`, { token: user.token })).body.preview.image_url).toBe(kept);
  });

  it("change by PATCH: parts omitted are kept, null removes one, the image only as its own address, null removes all", async () => {
    const user = await newUser("preview-patch");
    const link = await previewedLink(user);
    const imageUrl = (await upload(user, link.id, await solidImage("png", 40, 40, "#2040d0"), "image/png")).body.preview
      .image_url as string;
    const patch = (body: unknown) => call("PATCH", `/api/links/${link.id}`, { token: user.token, body: { preview: body } });

    const retitled = await patch({ title: "Summer menu" });
    expect(retitled.body.preview).toEqual({ title: "Summer menu", description: preview.description, image_url: imageUrl });
    expect((await patch({ title: "Summer menu", image_url: imageUrl })).body.preview.image_url).toBe(imageUrl);
    const foreign = await patch({ image_url: "https://elsewhere.example/a.png" });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatch(/^preview\.image_url: a link's preview image is one uploaded for it/);

    const imageless = await patch({ image_url: null, description: null });
    expect(imageless.body.preview).toEqual({ title: "Summer menu", description: null, image_url: null });
    expect((await fetchImage(imageUrl)).status).toBe(404);
    expect(await db().linkPreviewImage.count({ where: { linkId: link.id } })).toBe(0);
    const removed = await patch(null);
    expect(removed.body.preview).toBeNull();
    const history = await call("GET", `/api/links/${link.id}/history`, { token: user.token });
    expect(history.body.entries.filter((entry: { changed: string[] }) => entry.changed.includes("preview")).length).toBe(5);
  });

  it("go out in the export and come back in with an import of it", async () => {
    const [owner, other] = await Promise.all([newUser("preview-export"), newUser("preview-import")]);
    const link = await previewedLink(owner);
    const exported = await call("GET", "/api/links/export", { token: owner.token });
    expect(exported.text.split("\n")[0]).toContain('"preview_title","preview_description","preview_image_url","preview_count"');
    const json = await call("GET", "/api/links/export?format=json", { token: owner.token });
    expect(json.body.links[0]).toMatchObject({ id: link.id, ...{ preview_title: preview.title }, preview_count: 0 });
    const started = await call("POST", "/api/imports", {
      token: other.token,
      rawBody: exported.text,
      headers: { "content-type": "text/csv" },
    });
    expect(started.status, started.text).toBe(202);
    let job = started.body;
    for (let attempt = 0; attempt < 400 && job.status !== "done" && job.status !== "failed"; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      job = (await call("GET", `/api/imports/${started.body.id}`, { token: other.token })).body;
    }
    expect(job.status).toBe("done");
    const imported = await call("GET", "/api/links", { token: other.token });
    const made = await call("GET", `/api/links/${imported.body.links[0].id}`, { token: other.token });
    expect(made.body.preview).toEqual({ ...preview, image_url: null });
  });

  it("never serve a password link's image", async () => {
    const user = await newUser("preview-password");
    const link = await previewedLink(user, { password: "staff only" });
    const uploaded = await upload(user, link.id, await solidImage("png", 40, 40, "#2040d0"), "image/png");
    expect(uploaded.status).toBe(200);
    const image = await fetchImage(uploaded.body.preview.image_url);
    expect([image.status, image.body]).toEqual([404, { error: "No link with this id has a preview image." }]);
  });
});
