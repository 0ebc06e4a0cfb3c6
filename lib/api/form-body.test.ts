import { createLink, updateLink } from "@/lib/links/operations";
import { describe, expect, it } from "vitest";
import { FieldRefusal, formBody } from "./form-body";

const NAMES = { slug: "The custom slug", destination: "The destination" };

function refusal(run: () => unknown): FieldRefusal {
  try {
    run();
  } catch (error) {
    if (error instanceof FieldRefusal) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("a form's body, checked by its operation's schema", () => {
  it("passes a valid body through as the schema reads it", () => {
    expect(formBody(createLink, { destination: "https://example.com/a", slug: "spring" }, NAMES)).toEqual({
      destination: "https://example.com/a",
      slug: "spring",
    });
  });

  it("names the field in the form's words, ties the refusal to it, and says nothing of requests", () => {
    const refused = refusal(() => formBody(createLink, { destination: "https://example.com/a", slug: "old flyer" }, NAMES));
    expect(refused.field).toBe("slug");
    expect(refused.message).toBe(
      "The custom slug may use letters and digits except 0, O, 1, l and I, plus - and _, with . or ~ between two of them and / between parts.",
    );
    expect(refused.message).not.toMatch(/request|body/i);
  });

  it("falls back to the field's own name in words when the form gave none", () => {
    const refused = refusal(() => formBody(createLink, { destination: "https://example.com/a", domain_id: "x" }, NAMES));
    expect(refused.field).toBe("domain_id");
    expect(refused.message).toMatch(/^The domain id must be/);
  });

  it("tells a problem of the whole form as its own sentence, tied to no field", () => {
    const refused = refusal(() => formBody(updateLink, {}, NAMES));
    expect(refused.field).toBeUndefined();
    expect(refused.message).toMatch(/^Send destination, title, .*\(or several\)\.$/);
  });
});
