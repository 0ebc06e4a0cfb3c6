import { normaliseDestination } from "@/lib/safety/destination";
import { describe, expect, it } from "vitest";
import { NO_UTM, utmFromForm, utmOf, withUtm } from "./parameters";

describe("the UTM part of a destination", () => {
  it("adds parameters at the end, in the usual order, encoded", () => {
    expect(
      withUtm("https://example.com/menu", {
        utm_campaign: "spring sale",
        utm_source: "poster",
        utm_medium: "print",
        utm_term: "",
        utm_content: "a&b=c/ü",
      }),
    ).toBe(
      "https://example.com/menu?utm_source=poster&utm_medium=print&utm_campaign=spring%20sale&utm_content=a%26b%3Dc%2F%C3%BC",
    );
  });

  it("keeps the other parameters, their order and the fragment exactly as written", () => {
    expect(withUtm("https://example.com/a?lang=fr&x=%7e+y#top", { utm_source: "flyer" })).toBe(
      "https://example.com/a?lang=fr&x=%7e+y&utm_source=flyer#top",
    );
  });

  it("changes a parameter in its place, and keeps its spelling when its value is the same", () => {
    const destination = "https://example.com/?utm_source=old&id=7&utm_campaign=spring+sale&utm_medium=print";
    expect(withUtm(destination, { utm_source: "new", utm_campaign: "spring sale", utm_medium: "print" })).toBe(
      "https://example.com/?utm_source=new&id=7&utm_campaign=spring+sale&utm_medium=print",
    );
    expect(withUtm(destination, utmOf(destination))).toBe(destination);
  });

  it("removes every pair of a parameter whose field is emptied, but leaves fields not named", () => {
    expect(withUtm("https://example.com/?utm_source=a&utm_source=b&utm_medium=c&k=1", { utm_source: "  ", utm_term: "" })).toBe(
      "https://example.com/?utm_medium=c&k=1",
    );
    expect(withUtm("https://example.com/?utm_source=a", { utm_source: "" })).toBe("https://example.com/");
    expect(withUtm("https://example.com/?utm_source=a", {})).toBe("https://example.com/?utm_source=a");
  });

  it("leaves a field that did not change exactly as written, even repeated or empty", () => {
    const repeated = "https://example.com/?utm_source=a&id=7&utm_source=b&utm_campaign=spring";
    expect(withUtm(repeated, { utm_source: "a" })).toBe(repeated);
    expect(withUtm(repeated, { ...utmOf(repeated), utm_campaign: "summer" })).toBe(
      "https://example.com/?utm_source=a&id=7&utm_source=b&utm_campaign=summer",
    );
    const empty = "https://example.com/?utm_medium=&k=1&utm_term&utm_medium=x";
    expect(withUtm(empty, utmOf(empty))).toBe(empty);
    expect(withUtm(empty, { ...utmOf(empty), utm_source: "poster" })).toBe(`${empty}&utm_source=poster`);
    // A value the destination carries with its own spaces is the same value, given as it reads or trimmed.
    const spaced = "https://example.com/?utm_content=%20left&utm_content=right";
    expect(withUtm(spaced, { utm_content: " left" })).toBe(spaced);
    expect(withUtm("https://example.com/?utm_content=left&utm_content=right", { utm_content: " left " })).toBe(
      "https://example.com/?utm_content=left&utm_content=right",
    );
  });

  it("replaces every pair of a field that changed, in the place of its first", () => {
    expect(withUtm("https://example.com/?utm_source=a&k=1&utm_source=b", { utm_source: "c" })).toBe(
      "https://example.com/?utm_source=c&k=1",
    );
    expect(withUtm("https://example.com/?utm_source=a&k=1&utm_source=b", { utm_source: "b" })).toBe(
      "https://example.com/?utm_source=b&k=1",
    );
    expect(withUtm("https://example.com/?utm_medium=&k=1", { utm_medium: "print" })).toBe(
      "https://example.com/?utm_medium=print&k=1",
    );
  });

  it("reads the first of each parameter, decoded as a form decodes it, and nothing from the fragment", () => {
    expect(utmOf("https://example.com/?utm_source=news%20letter&utm_medium=e+mail&utm_source=x#utm_term=no")).toEqual({
      ...NO_UTM,
      utm_source: "news letter",
      utm_medium: "e mail",
    });
    expect(utmOf("https://example.com/?UTM_SOURCE=a&utm_campaign=%E0%A4%A")).toEqual({ ...NO_UTM, utm_campaign: "%E0%A4%A" });
    expect(utmOf("example.com/menu")).toEqual(NO_UTM);
  });

  it("works on what was typed before a scheme is added, and what it builds normalises like any destination", () => {
    const built = withUtm("example.com/menu?ref=1", { utm_source: "poster", utm_content: "table~tent" });
    expect(built).toBe("example.com/menu?ref=1&utm_source=poster&utm_content=table~tent");
    const normalised = normaliseDestination(`https://${built}`);
    expect(normalised).toBe("https://example.com/menu?ref=1&utm_source=poster&utm_content=table~tent");
    expect(utmOf(normalised)).toMatchObject({ utm_source: "poster", utm_content: "table~tent" });
    // Encoding an unreserved character is undone by normalisation, and reads back the same.
    expect(utmOf(normaliseDestination(withUtm("https://example.com/", { utm_campaign: "a b~c" })))).toMatchObject({
      utm_campaign: "a b~c",
    });
  });

  it("takes the fields a form carries and leaves out those it does not", () => {
    const form = new Map<string, unknown>([
      ["utm_source", "poster"],
      ["utm_medium", ""],
      ["destination", "https://example.com/"],
    ]);
    expect(utmFromForm((name) => form.get(name))).toEqual({ utm_source: "poster", utm_medium: "" });
  });
});
