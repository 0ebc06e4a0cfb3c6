import { describe, expect, it } from "vitest";
import { abuseWarningPage, notFoundPage, previewPage, unavailablePage } from "./pages";

const ASCII_ONLY = /^[\0-\x7f]*$/;

describe("pages", () => {
  it("are ASCII whatever they show: markup and everything beyond ASCII become numeric references", () => {
    const blocked = abuseWarningPage("phishing — hameçonnage 🎣 <script>");
    expect(blocked).toMatch(ASCII_ONLY);
    expect(blocked).toContain("Reason: phishing &#8212; hame&#231;onnage &#127907; &#60;script&#62;.");
    for (const page of [notFoundPage(), abuseWarningPage(null), unavailablePage()]) expect(page).toMatch(ASCII_ONLY);
  });

  it("lead a crawler to the destination, or only to the short URL when the link counts its scans", () => {
    const preview = { title: "Spring menu", description: null, imageUrl: null };
    const leading = previewPage(preview, "https://example.com/menu", "https://s.example/spring");
    expect(leading).toContain('<meta http-equiv="refresh" content="0; url=https://example.com/menu">');
    expect(leading).toContain('<a href="https://example.com/menu">');
    const counted = previewPage(preview, null, "https://s.example/spring");
    expect(counted).not.toContain("http-equiv");
    expect(counted).not.toContain("example.com/menu");
    expect(counted).toContain('<a href="https://s.example/spring">');
    expect(counted).toContain('<meta property="og:title" content="Spring menu">');
  });
});
