import { once } from "node:events";
import { mkdtemp, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DomainError } from "@/lib/http/errors";
import { colourAt, countNear, pixelsOf, pngBomb, solidImage } from "@/tests/support/images";
import { encodeLogo, logoUploadType } from "./decode";
import type { LogoUploadType } from "./schemas";

async function refusal(bytes: Buffer, type: LogoUploadType): Promise<DomainError> {
  try {
    await encodeLogo(bytes, type);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("The upload was accepted.");
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("the upload's Content-Type", () => {
  it.each([
    "image/png",
    "IMAGE/PNG",
    "image/png; charset=binary",
    "image/jpeg",
    "image/webp",
    "image/svg+xml",
    "image/svg+xml;charset=utf-8",
  ])("accepts %s", (type) => {
    expect(logoUploadType(type)).toBe(type.split(";")[0]!.toLowerCase());
  });

  it.each([null, "", "image/gif", "application/octet-stream", "text/xml", "image/svg"])(
    "refuses %s with 415 naming the accepted types",
    (type) => {
      expect(() => logoUploadType(type)).toThrow(DomainError);
      try {
        logoUploadType(type);
      } catch (error) {
        expect((error as DomainError).code).toBe("unsupported_media_type");
        expect((error as DomainError).message).toMatch(/image\/png, image\/jpeg, image\/webp, image\/svg\+xml/);
      }
    },
  );
});

describe("re-encoding an accepted logo", () => {
  it.each(["png", "jpeg", "webp"] as const)(
    "turns a %s into a PNG of at most 1024×1024, keeping its shape and colour",
    async (format) => {
      const upload = await solidImage(format, 2000, 1000, "#2060c0");
      const logo = await encodeLogo(upload, `image/${format}`);
      expect(logo.data.subarray(0, 8)).toEqual(PNG_MAGIC);
      expect([logo.width, logo.height]).toEqual([1024, 512]);
      const pixels = await pixelsOf(logo.data);
      expect([pixels.width, pixels.height]).toEqual([1024, 512]);
      const [red, green, blue] = colourAt(pixels, 512, 256);
      expect(Math.abs(red - 0x20) + Math.abs(green - 0x60) + Math.abs(blue - 0xc0)).toBeLessThan(12);
    },
  );

  it("keeps a small logo at its own size", async () => {
    const logo = await encodeLogo(await solidImage("png", 120, 80, "#000000"), "image/png");
    expect([logo.width, logo.height]).toEqual([120, 80]);
  });

  it("turns a phone photo upright by its EXIF orientation and drops the metadata", async () => {
    const photo = await sharp({ create: { width: 200, height: 100, channels: 3, background: "#808080" } })
      .withMetadata({ orientation: 6, exif: { IFD0: { Copyright: "secret location" } } })
      .jpeg()
      .toBuffer();
    const logo = await encodeLogo(photo, "image/jpeg");
    expect([logo.width, logo.height]).toEqual([100, 200]);
    const metadata = await sharp(logo.data).metadata();
    expect(metadata.exif).toBeUndefined();
    expect(logo.data.includes("secret location")).toBe(false);
  });

  it("rasterises a clean SVG, scaling a small icon up to 1024 pixels", async () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><circle cx="32" cy="32" r="30" fill="#2040d0"/></svg>';
    const logo = await encodeLogo(Buffer.from(svg), "image/svg+xml");
    expect(logo.data.subarray(0, 8)).toEqual(PNG_MAGIC);
    expect([logo.width, logo.height]).toEqual([1024, 1024]);
    const pixels = await pixelsOf(logo.data);
    expect(colourAt(pixels, 512, 512)).toEqual([0x20, 0x40, 0xd0, 255]);
    expect(colourAt(pixels, 2, 2)[3]).toBe(0);
  });
});

describe("an SVG with active content or outside references", () => {
  let server: Server;
  let requests = 0;
  let serverUrl = "";
  let localFile = "";

  beforeAll(async () => {
    const red = await solidImage("png", 64, 64, "#ff0000");
    server = createServer((_request, response) => {
      requests++;
      response.writeHead(200, { "content-type": "image/png" }).end(red);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const folder = await mkdtemp(join(tmpdir(), "logo-"));
    localFile = join(folder, "red.png");
    await writeFile(localFile, red);
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("is stored as pixels only: no script runs, nothing outside the file is loaded", async () => {
    const svg = `<?xml version="1.0"?>
      <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100" onload="fetch('${serverUrl}/onload')">
        <style>@import url("${serverUrl}/style.css"); rect.remote { fill: url("${serverUrl}/paint.svg#p") }</style>
        <script>fetch("${serverUrl}/script")</script>
        <rect width="100" height="100" fill="#2040d0"/>
        <image href="${serverUrl}/remote.png" x="0" y="0" width="50" height="50"/>
        <image xlink:href="file://${localFile}" x="50" y="0" width="50" height="50"/>
        <image href="${localFile}" x="0" y="50" width="50" height="50"/>
        <use href="${serverUrl}/sprite.svg#icon" x="50" y="50"/>
        <rect class="remote" x="60" y="60" width="10" height="10" onclick="alert(1)"/>
        <foreignObject width="100" height="100"><iframe xmlns="http://www.w3.org/1999/xhtml" src="${serverUrl}/frame"/></foreignObject>
      </svg>`;
    const logo = await encodeLogo(Buffer.from(svg), "image/svg+xml");
    expect(logo.data.subarray(0, 8)).toEqual(PNG_MAGIC);
    const pixels = await pixelsOf(logo.data);
    expect(countNear(pixels, [255, 0, 0], 30)).toBe(0);
    expect(colourAt(pixels, 100, 100)).toEqual([0x20, 0x40, 0xd0, 255]);
    expect(requests).toBe(0);
    for (const marker of ["script", "onload", "fetch", "127.0.0.1", "red.png"]) expect(logo.data.includes(marker)).toBe(false);
  });

  it("is refused with 415 when it declares an external entity (the file it names is never read)", async () => {
    const svg = `<?xml version="1.0"?>
      <!DOCTYPE svg [<!ENTITY secret SYSTEM "file://${localFile}">]>
      <svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><text x="10" y="90">&secret;</text></svg>`;
    const error = await refusal(Buffer.from(svg), "image/svg+xml");
    expect(error.code).toBe("unsupported_media_type");
    expect(error.message).toBe(
      "The body is not a well-formed, self-contained SVG image (external entities are refused); send the SVG file itself, or a PNG.",
    );
  });
});

describe("refused uploads", () => {
  it("refuses a decompression bomb (400 megapixels in a few kilobytes) with 413, before decoding it", async () => {
    const bomb = pngBomb(20_000);
    expect(bomb.length).toBeLessThan(100_000);
    const started = performance.now();
    const error = await refusal(bomb, "image/png");
    expect(error.code).toBe("too_large");
    expect(error.message).toBe(
      "The image is 20000×20000 pixels (400.0 megapixels); a logo may have at most 25 megapixels, so scale it down first.",
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it.each([
    [
      "a PNG sent as image/jpeg",
      () => solidImage("png", 10, 10, "#000"),
      "image/jpeg",
      "The body is a PNG, not the image/jpeg its Content-Type claims; send it with its real type.",
    ],
    [
      "a JPEG sent as image/png",
      () => solidImage("jpeg", 10, 10, "#000"),
      "image/png",
      "The body is a JPEG, not the image/png its Content-Type claims; send it with its real type.",
    ],
    ["a WebP sent as image/png", () => solidImage("webp", 10, 10, "#000"), "image/png", /is a WebP, not the image\/png/],
    [
      "an SVG sent as image/png",
      async () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'),
      "image/png",
      /is an SVG, not the image\/png/,
    ],
    [
      "a GIF sent as image/png",
      () =>
        sharp({ create: { width: 4, height: 4, channels: 3, background: "#000" } })
          .gif()
          .toBuffer(),
      "image/png",
      /is a GIF, not the image\/png/,
    ],
    [
      "a PNG sent as image/svg+xml",
      () => solidImage("png", 10, 10, "#000"),
      "image/svg+xml",
      /is a PNG, not the image\/svg\+xml/,
    ],
    [
      "text sent as image/png",
      async () => Buffer.from("this is not an image at all"),
      "image/png",
      "The body is not a complete, readable image/png image; send the image file itself with its real type.",
    ],
    [
      "HTML sent as image/svg+xml",
      async () => Buffer.from("<html><body>hello</body></html>"),
      "image/svg+xml",
      /not a well-formed, self-contained SVG/,
    ],
    [
      "a truncated PNG",
      async () => (await solidImage("png", 300, 300, "#123456")).subarray(0, 200),
      "image/png",
      /not a complete, readable image\/png/,
    ],
  ] as const)("refuses %s with 415", async (_name, make, type, message) => {
    const error = await refusal(await make(), type);
    expect(error.code).toBe("unsupported_media_type");
    expect(error.message).toMatch(message);
  });

  it("refuses an empty body with 400", async () => {
    const error = await refusal(Buffer.alloc(0), "image/png");
    expect(error.code).toBe("invalid_request");
  });
});
