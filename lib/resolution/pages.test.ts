import { describe, expect, it } from "vitest";
import { abuseWarningPage, notFoundPage, unavailablePage } from "./pages";

const ASCII_ONLY = /^[\0-\x7f]*$/;

describe("pages", () => {
  it("are ASCII whatever they show: markup and everything beyond ASCII become numeric references", () => {
    const blocked = abuseWarningPage("phishing — hameçonnage 🎣 <script>");
    expect(blocked).toMatch(ASCII_ONLY);
    expect(blocked).toContain("Reason: phishing &#8212; hame&#231;onnage &#127907; &#60;script&#62;.");
    for (const page of [notFoundPage(), abuseWarningPage(null), unavailablePage()]) expect(page).toMatch(ASCII_ONLY);
  });
});
