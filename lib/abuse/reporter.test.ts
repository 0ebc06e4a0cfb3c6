import { describe, expect, it } from "vitest";
import { reporterKey } from "./reporter";

describe("reporterKey", () => {
  it("is one keyed hash per network, holding neither address", () => {
    const key = reporterKey("2001:db8:aa:bb::1");
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(reporterKey("2001:db8:aa:bb:ffff:ffff:ffff:ffff")).toBe(key);
    expect(reporterKey("::ffff:203.0.113.5")).toBe(reporterKey("203.0.113.250"));
    expect(reporterKey("2001:db8:aa:bc::1")).not.toBe(key);
  });
});
