import { describe, expect, it } from "vitest";
import { instantOfZoned, zonedInputValue } from "./zoned-time";

describe("a time in the viewer's zone", () => {
  it("is shown and read in that zone, and is the same instant in UTC", () => {
    const instant = Date.parse("2030-12-31T22:00:00Z");
    expect(zonedInputValue(instant, "Australia/Sydney")).toBe("2031-01-01T09:00");
    expect(instantOfZoned("2031-01-01T09:00", "Australia/Sydney")).toBe(instant);
    expect(zonedInputValue(instant, "UTC")).toBe("2030-12-31T22:00");
    expect(instantOfZoned("2030-12-31T22:00", "UTC")).toBe(instant);
    expect(instantOfZoned("2031-07-01T09:00", "America/New_York")).toBe(Date.parse("2031-07-01T13:00:00Z"));
    expect(instantOfZoned("2031-07-01T09:00", "Asia/Kolkata")).toBe(Date.parse("2031-07-01T03:30:00Z"));
  });

  it("takes a time the clocks pass twice as the first, and one they skip as an hour later", () => {
    // Sydney's clocks go back from 03:00 to 02:00 on 6 April 2031, and forward from 02:00 to 03:00 on 5 October.
    expect(instantOfZoned("2031-04-06T02:30", "Australia/Sydney")).toBe(Date.parse("2031-04-05T15:30:00Z"));
    expect(zonedInputValue(instantOfZoned("2031-10-05T02:30", "Australia/Sydney"), "Australia/Sydney")).toBe("2031-10-05T03:30");
  });

  it("is no instant when the field holds no date and time", () => {
    expect(instantOfZoned("", "UTC")).toBeNaN();
    expect(instantOfZoned("2031-01-01", "Australia/Sydney")).toBeNaN();
  });
});
