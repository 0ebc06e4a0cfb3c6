import { describe, expect, it } from "vitest";
import { valueInWords } from "./value-words";

describe("a breakdown's value in words", () => {
  it.each([
    ["source", "qr", "QR code"],
    ["source", "link", "Link"],
    ["referrer", "direct", "Direct (no referring site)"],
    ["referrer", "news.example.com", "news.example.com"],
    ["country", "AU", "Australia"],
    ["country", "unknown", "Unknown"],
    ["country", "XY", "XY"],
    ["device", "mobile", "Phone"],
    ["device", "desktop", "Computer"],
    ["os", "other", "Other"],
    ["browser", "Firefox", "Firefox"],
  ] as const)("%s %s reads %s", (dimension, key, words) => {
    expect(valueInWords(dimension, key)).toBe(words);
  });
});
