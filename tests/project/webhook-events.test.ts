import { EVENT_TYPES } from "@/lib/webhooks/events";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/** The event names (`link.created`, …) docs/webhooks.md's "Events" section describes. */
function documentedEvents(): string[] {
  const page = readFileSync("docs/webhooks.md", "utf8");
  const start = page.indexOf("\n## Events\n");
  const section = page.slice(start, page.indexOf("\n## ", start + 1));
  return [...new Set([...section.matchAll(/`([a-z_]+\.[a-z_]+)`/g)].map((match) => match[1]!))];
}

describe("docs/webhooks.md", () => {
  it("describes every event a webhook may subscribe to, and no other", () => {
    expect(documentedEvents().sort()).toEqual([...EVENT_TYPES].sort());
  });
});
