import { describe, expect, it } from "vitest";
import { destinationNow, destinationsOf } from "./destinations";
import { ABUSE, ACTIVE } from "./status";

const link = {
  status: ACTIVE,
  destination: "https://example.com/own",
  rules: [{ destination: "https://example.com/fr" }, { destination: "https://example.com/own" }],
  schedule: [
    { at: 100, destination: "https://example.com/due" },
    { at: 200, destination: "https://example.com/next" },
    { at: 300, destination: "https://example.com/fr" },
  ],
};

describe("destinationsOf", () => {
  it("names where the link points now, each rule's and each repoint still to come, each once with its first holder", () => {
    expect(destinationsOf(link, 150)).toEqual([
      { destination: "https://example.com/due", holder: { kind: "own" } },
      { destination: "https://example.com/fr", holder: { kind: "rule", index: 0 } },
      { destination: "https://example.com/own", holder: { kind: "rule", index: 1 } },
      { destination: "https://example.com/next", holder: { kind: "scheduled", at: 200 } },
    ]);
  });

  it("holds only its own destination when it has no rules and no schedule", () => {
    expect(destinationsOf({ ...link, rules: null, schedule: null }, 150)).toEqual([
      { destination: "https://example.com/own", holder: { kind: "own" } },
    ]);
  });
});

describe("destinationNow", () => {
  it("follows the schedule, except for a link in abuse, which keeps the destination it was blocked with", () => {
    expect(destinationNow(link, 99)).toBe("https://example.com/own");
    expect(destinationNow(link, 250)).toBe("https://example.com/next");
    expect(destinationNow({ ...link, status: ABUSE }, 250)).toBe("https://example.com/own");
  });
});
