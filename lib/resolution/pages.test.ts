import { describe, expect, it } from "vitest";
import { abuseWarningPage, notFoundPage, unavailablePage } from "./pages";

const ASCII_ONLY = /^[\0-\x7f]*$/;

describe("pages", () => {
  it("are ASCII whatever they show: markup and everything beyond ASCII become numeric references", () => {
    const blocked = abuseWarningPage("phishing — hameçonnage 🎣 <script>");
    expect(blocked).toMatch(ASCII_ONLY);
    expect(blocked).toContain("Reason: phishing &#8212; hame&#231;onnage &#127907; &#60;script&#62;.");
    for (const page of [notFoundPage("abc"), notFoundPage("é"), abuseWarningPage(null), unavailablePage()]) expect(page).toMatch(ASCII_ONLY);
  });

  it("show the unknown code escaped, inside the page rendered once", () => {
    const page = notFoundPage(`a"<b>`);
    expect(page).toContain("No link has the code &#8220;a&#34;&#60;b&#62;&#8221;.");
    expect(page.startsWith("<!doctype html>")).toBe(true);
    expect(page.endsWith("</body></html>")).toBe(true);
  });
});
