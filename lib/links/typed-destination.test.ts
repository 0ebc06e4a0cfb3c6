import { describe, expect, it } from "vitest";
import { withScheme } from "./typed-destination";

describe("a typed destination", () => {
  it("gets https:// when it has no scheme", () => {
    expect(withScheme("example.com/menu")).toBe("https://example.com/menu");
    expect(withScheme("  www.example.com  ")).toBe("https://www.example.com");
    expect(withScheme("example.com:8080/menu")).toBe("https://example.com:8080/menu");
    expect(withScheme("//example.com/menu")).toBe("https://example.com/menu");
  });

  it("keeps a scheme it was given, for the links capability to judge", () => {
    expect(withScheme("http://example.com")).toBe("http://example.com");
    expect(withScheme("HTTPS://example.com")).toBe("HTTPS://example.com");
    expect(withScheme("ftp://example.com/file")).toBe("ftp://example.com/file");
    expect(withScheme("javascript:alert(1)")).toBe("javascript:alert(1)");
  });

  it("leaves an empty field empty, for the form to say it is needed", () => {
    expect(withScheme("   ")).toBe("");
  });
});
