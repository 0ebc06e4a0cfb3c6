import { describe, expect, it } from "vitest";
import { type Download, matchesIfNoneMatch, sendDownload } from "./download";

describe("If-None-Match", () => {
  const etag = '"abc123"';
  it.each([
    ['"abc123"', true],
    ['W/"abc123"', true],
    ['"x", "abc123"', true],
    ["*", true],
    ['"abc124"', false],
    ["", false],
    [null, false],
    ["abc123", false],
  ])("%s matches: %s", (header, expected) => {
    expect(matchesIfNoneMatch(header, etag)).toBe(expected);
  });
});

describe("sendDownload", () => {
  let loads = 0;
  const download: Download = {
    etag: '"v1"',
    contentType: "image/png",
    fileName: "qr-AbC.png",
    load: async () => {
      loads++;
      return { body: Buffer.from("png bytes"), etag: '"v1"' };
    },
  };

  it("sends the file with its headers", async () => {
    const response = await sendDownload(new Request("http://app.test.example/f"), download);
    expect(response.status).toBe(200);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      "content-type": "image/png",
      "content-disposition": 'attachment; filename="qr-AbC.png"',
      etag: '"v1"',
      "cache-control": "private, no-cache",
      "x-content-type-options": "nosniff",
      "content-length": "9",
    });
    expect(await response.text()).toBe("png bytes");
  });

  it("answers a matching If-None-Match with 304 without loading the file", async () => {
    loads = 0;
    const response = await sendDownload(
      new Request("http://app.test.example/f", { headers: { "if-none-match": '"v1"' } }),
      download,
    );
    expect(response.status).toBe(304);
    expect(response.headers.get("etag")).toBe('"v1"');
    expect(await response.text()).toBe("");
    expect(loads).toBe(0);
  });
});
