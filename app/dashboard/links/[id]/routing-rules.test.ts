import { describe, expect, it } from "vitest";
import { asRule, deviceName, editable, EMPTY_RULE } from "./routing-rules";

describe("the routing editor's rules", () => {
  it("reads typed lists split by commas or spaces and leaves empty conditions out", () => {
    expect(asRule({ ...EMPTY_RULE, countries: "AU, NZ  GB", languages: " ", destination: "example.com/au" })).toEqual({
      when: { country: ["AU", "NZ", "GB"] },
      destination: "https://example.com/au",
    });
    expect(asRule({ ...EMPTY_RULE, devices: ["mobile"], systems: ["ios"], destination: "https://example.com/" }).when).toEqual({
      device: ["mobile"],
      os: ["ios"],
    });
  });

  it("shows a saved rule as it was typed, and gives it back unchanged", () => {
    const rule = {
      when: { country: ["AU", "NZ"], language: ["fr"], device: ["tablet" as const] },
      destination: "https://example.com/",
    };
    expect(editable(rule)).toEqual({
      countries: "AU, NZ",
      devices: ["tablet"],
      systems: [],
      languages: "fr",
      destination: "https://example.com/",
    });
    expect(asRule(editable(rule))).toEqual(rule);
  });

  it("names a device in words", () => {
    expect(deviceName("desktop")).toBe("Desktop");
  });
});
