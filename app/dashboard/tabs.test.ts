import { describe, expect, it } from "vitest";
import { tabOf } from "./tabs";

describe("the tab of a dashboard address", () => {
  it.each([
    ["/dashboard", "/dashboard"],
    ["/dashboard/links/lnk_0123456789abcdefghij", "/dashboard"],
    ["/dashboard/analytics", "/dashboard/analytics"],
    ["/dashboard/settings", "/dashboard/settings"],
    ["/dashboard/settings/webhooks", "/dashboard/settings/webhooks"],
    ["/dashboard/tagsandmore", undefined],
    ["https://evil.example/dashboard/billing", undefined],
    ["//evil.example", undefined],
  ])("%s is under %s", (pathname, tab) => {
    expect(tabOf(pathname)).toBe(tab);
  });
});
