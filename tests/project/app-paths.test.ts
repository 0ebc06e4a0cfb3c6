import { APP_SUBTREES, APP_TOP_LEVEL_PATHS } from "@/lib/links/app-paths";
import { codeInPath } from "@/lib/resolution/door";
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";

/** What app/ serves at its top level: its folders and files, a route group's own children in its place. */
function topLevelNames(directory = "app"): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory() && /^\(.+\)$/.test(entry.name)) return topLevelNames(`${directory}/${entry.name}`);
    if (!entry.isDirectory() && /^(?:page|layout|not-found|error|loading)\.tsx$|\.css$/.test(entry.name)) return [];
    return [entry.name];
  });
}

describe("the application's own top-level paths", () => {
  it("name everything app/ serves at its top level, so no code (one segment or several) takes it", () => {
    const named = new Set([...APP_TOP_LEVEL_PATHS, ...APP_SUBTREES, ".well-known"]);
    expect(topLevelNames().filter((name) => !named.has(name))).toEqual([]);
  });

  it("leave an invitation's page and an app's consent page to the application, and /invite and /connect alone codes", () => {
    expect(codeInPath("/invite/Kx7mQ2vR9tLp")).toBeNull();
    expect(codeInPath("/invite")).toBe("invite");
    expect(codeInPath("/connect/oau_Kx7mQ2vR9tLpAb3cDe4F")).toBeNull();
    expect(codeInPath("/connect")).toBe("connect");
    expect(codeInPath("/2024/spring")).toBe("2024/spring");
  });
});
