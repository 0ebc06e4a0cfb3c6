import { FRONT_NODE_FLAGS } from "@/server/app-process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

describe("the runtime", () => {
  it("is the Node 24 that package.json installs, not the machine's own Node", () => {
    const declared = JSON.parse(readFileSync("package.json", "utf8"));
    expect(declared.engines.node).toMatch(/^>=24 /);
    expect(declared.devDependencies.node).toMatch(/^24\./);
    expect(process.versions.node.split(".")[0]).toBe("24");
  });

  it("starts the front door with the same Node flags in npm start, the tests and the bench", () => {
    const { scripts } = JSON.parse(readFileSync("package.json", "utf8"));
    expect(scripts.start).toBe(`node ${FRONT_NODE_FLAGS.join(" ")} --import tsx scripts/start.ts`);
  });
});
