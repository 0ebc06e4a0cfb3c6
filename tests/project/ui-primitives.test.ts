import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/import-graph";

/** Where in the app's files the pattern matches, as "file:line: what matched". */
function places(pattern: RegExp): string[] {
  return sourceFiles("app").flatMap((file) => {
    const source = readFileSync(file, "utf8");
    return [...source.matchAll(new RegExp(pattern, "g"))].map((match) => {
      const line = source.slice(0, match.index).split("\n").length;
      return `${file}:${line}: ${match[0].replace(/\s+/g, " ")}`;
    });
  });
}

describe("the app's forms", () => {
  it("label their controls with the primitives of components/ui, never with a hand-wired <label>", () => {
    // A label and its control are paired by Field (TextField, SelectField) or Checkbox: the ids, the
    // invalid mark and what describes the control are written once there.
    expect(sourceFiles("app").length).toBeGreaterThan(20);
    expect(places(/<label[\s>]/)).toEqual([]);
  });

  it("draw controls and buttons with Input, Select and Button rather than with their class lists", () => {
    expect(places(/\binputClass\b/)).toEqual([]);
    // A button's opening tag, across lines, up to the first ">" (an arrow function's ends it early: enough to find the class).
    expect(places(/<button\b[^>]*\bbuttonClass\b/)).toEqual([]);
  });
});
