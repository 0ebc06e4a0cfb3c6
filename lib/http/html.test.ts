import { describe, expect, it } from "vitest";
import { escapeHtml } from "./html";

describe("escapeHtml", () => {
  it("turns markup and everything beyond ASCII into numeric references", () => {
    expect(escapeHtml(`phishing — hameçonnage 🎣 <script>"'&`)).toBe(
      "phishing &#8212; hame&#231;onnage &#127907; &#60;script&#62;&#34;&#39;&#38;",
    );
  });

  it("shows a lone surrogate or a C1 control as the replacement character, not as what HTML maps its number to", () => {
    expect(escapeHtml("a\u0096b\ud800c")).toBe("a&#65533;b&#65533;c");
  });
});
