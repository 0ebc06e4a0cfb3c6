import { readIncomingQuery } from "@/lib/resolution/destination-query";
import { describe, expect, it } from "vitest";
import { artworkEtag, artworkFileName, levelFor, scanUrl } from "./artwork";
import { DEFAULT_QR_DESIGN, qrDesignBody, qrQuery } from "./schemas";

describe("what a code encodes", () => {
  it("is the short URL with the scan marker the resolution reads and strips", () => {
    const encoded = scanUrl("https://s.example.com/AbCdEf7");
    expect(encoded).toBe("https://s.example.com/AbCdEf7?qr");
    const incoming = readIncomingQuery(new URL(encoded).search);
    expect(incoming.viaQr).toBe(true);
    expect(incoming.forward.size).toBe(0);
  });
});

describe("the error-correction level", () => {
  it("defaults to M without a logo and honours any requested level", () => {
    expect(levelFor(undefined, false)).toBe("M");
    for (const level of ["L", "M", "Q", "H"] as const) expect(levelFor(level, false)).toBe(level);
  });

  it("is at least Q with a logo: H by default, L and M raised to Q", () => {
    expect(levelFor(undefined, true)).toBe("H");
    expect(levelFor("L", true)).toBe("Q");
    expect(levelFor("M", true)).toBe("Q");
    expect(levelFor("Q", true)).toBe("Q");
    expect(levelFor("H", true)).toBe("H");
  });
});

describe("the artwork's ETag and file name", () => {
  const identity = {
    value: "https://s.example.com/AbCdEf7?qr",
    format: "png",
    size: 1024,
    margin: 2,
    fg: "#000000",
    bg: "#ffffff",
    level: "M",
    logoSha256: null,
  } as const;

  it("changes with every input that changes the drawing, and only with those", () => {
    const base = artworkEtag(identity);
    expect(base).toMatch(/^"[0-9a-f]{64}"$/);
    expect(artworkEtag({ ...identity })).toBe(base);
    const variants = [
      { value: "https://s.example.com/Other77?qr" },
      { format: "svg" },
      { size: 512 },
      { margin: 4 },
      { fg: "#111111" },
      { bg: "#fefefe" },
      { level: "H" },
      { logoSha256: "ab" },
    ] as const;
    for (const change of variants) expect(artworkEtag({ ...identity, ...change })).not.toBe(base);
  });

  it("names the file after the slug, and the host for a custom-domain link", () => {
    expect(artworkFileName({ host: null, slug: "AbCdEf7" }, "png")).toBe("qr-AbCdEf7.png");
    expect(artworkFileName({ host: "go.brand.example", slug: "menu" }, "svg")).toBe("qr-go.brand.example-menu.svg");
  });
});

describe("the query options", () => {
  it("leaves every option but the format to the saved design when the query string names none", () => {
    expect(qrQuery.parse({})).toEqual({ format: "svg" });
  });

  it("gives a saved design the same rules, as JSON, with the documented defaults", () => {
    expect(qrDesignBody.parse({})).toEqual(DEFAULT_QR_DESIGN);
    expect(DEFAULT_QR_DESIGN).toEqual({ size: 1024, margin: 2, fg: "#000000", bg: "#ffffff", level: null, logo: false });
    expect(qrDesignBody.parse({ size: 64, fg: "#1B2A4A", level: "Q", logo: true })).toMatchObject({ fg: "#1b2a4a", logo: true });
    for (const [field, value] of [
      ["size", 63],
      ["margin", 17],
      ["fg", "black"],
      ["level", "X"],
      ["logo", "yes"],
    ] as const) {
      const query = qrQuery.safeParse({ [field]: String(value) });
      const body = qrDesignBody.safeParse({ [field]: value });
      expect(body.error?.issues[0]?.path).toEqual([field]);
      expect(body.error?.issues[0]?.message).toBe(query.error?.issues[0]?.message);
    }
  });

  it("reads query-string values and normalises colours", () => {
    expect(
      qrQuery.parse({ format: "png", size: "64", margin: "0", fg: "#1B2A4A", bg: "#FDF6E3", level: "Q", logo: "true" }),
    ).toEqual({
      format: "png",
      size: 64,
      margin: 0,
      fg: "#1b2a4a",
      bg: "#fdf6e3",
      level: "Q",
      logo: true,
    });
  });

  it.each([
    [{ size: "63" }, "size"],
    [{ size: "4097" }, "size"],
    [{ size: "100.5" }, "size"],
    [{ size: "big" }, "size"],
    [{ margin: "-1" }, "margin"],
    [{ margin: "17" }, "margin"],
    [{ fg: "black" }, "fg"],
    [{ bg: "#fff" }, "bg"],
    [{ level: "X" }, "level"],
    [{ logo: "yes" }, "logo"],
    [{ format: "gif" }, "format"],
  ])("refuses %o", (query, field) => {
    const result = qrQuery.safeParse(query);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual([field]);
  });
});
