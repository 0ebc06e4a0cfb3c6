import { describe, expect, it } from "vitest";
import { spokenDuration } from "./plain";

describe("spokenDuration", () => {
  it("says seconds under a minute, then minutes and seconds", () => {
    expect(spokenDuration(400)).toBe("0 s");
    expect(spokenDuration(44_600)).toBe("45 s");
    expect(spokenDuration(60_000)).toBe("1 min");
    expect(spokenDuration(125_000)).toBe("2 min 5 s");
  });
});
