import { describe, expect, it } from "vitest";
import { isMachineName } from "./boot";

describe("a HOST that tcsh exported (the machine's name, not an address)", () => {
  it("is the machine's name in full or short, in any case", () => {
    expect(isMachineName("web1.example.org", "web1.example.org")).toBe(true);
    expect(isMachineName("WEB1", "web1.example.org")).toBe(true);
    expect(isMachineName("vm", "vm")).toBe(true);
  });

  it("is no other name, no address, and never localhost", () => {
    expect(isMachineName("example", "web1.example.org")).toBe(false);
    expect(isMachineName("web2", "web1.example.org")).toBe(false);
    expect(isMachineName("127.0.0.1", "web1.example.org")).toBe(false);
    expect(isMachineName("localhost", "localhost")).toBe(false);
  });
});
