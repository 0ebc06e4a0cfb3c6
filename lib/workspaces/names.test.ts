import { describe, expect, it } from "vitest";
import { carriesAddress, workspaceInEmail } from "./names";

describe("carriesAddress", () => {
  it.each([
    "restore at permalink-help.evil.example",
    "https://evil.example",
    "ftp://x",
    "www evil",
    "mail support@evil.example",
    "evil。example",
    "evil．example",
    "ｅｖｉｌ．ｃｏｍ",
    "xn--80ak6aa92e.com",
    "shop.co.uk sale",
    "evil[.]example",
    "evil (dot) example",
    "evil{.}com",
    "hxxps evil",
    "login at 192.0.2.10",
    "router 10。0。0。1",
    "host 2001:db8::1",
    "loopback [::1]",
  ])("finds an address in %s", (name) => expect(carriesAddress(name)).toBe(true));

  it.each([
    "Marketing",
    "Launch v2.0",
    "Acme Inc.",
    "e.g. sales",
    "R&D / Ops",
    "Team 3.5",
    "Ünïcode Café",
    "Standup 12:30",
    "Release 1.2.3",
    "Cafe (beef) deals",
  ])("finds none in %s", (name) => expect(carriesAddress(name)).toBe(false));
});

describe("workspaceInEmail", () => {
  it("quotes a plain name and leaves out one that carries an address", () => {
    expect(workspaceInEmail("Growth")).toBe('the workspace "Growth"');
    expect(workspaceInEmail("alice@example.com's workspace")).toBe("a workspace");
  });
});
