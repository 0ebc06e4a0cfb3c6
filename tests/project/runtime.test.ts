import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

describe("the runtime", () => {
  it("is the Node 24 that package.json installs, not the machine's own Node", () => {
    const declared = JSON.parse(readFileSync("package.json", "utf8"));
    expect(declared.engines.node).toMatch(/^>=24 /);
    expect(declared.devDependencies.node).toMatch(/^24\./);
    expect(process.versions.node.split(".")[0]).toBe("24");
  });
});
