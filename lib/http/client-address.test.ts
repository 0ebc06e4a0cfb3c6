import { describe, expect, it } from "vitest";
import { clientNetwork } from "./client-address";

describe("clientNetwork", () => {
  it.each([
    ["an IPv4 address", "203.0.113.77", "203.0.113.0/24"],
    ["another address of the same /24", "203.0.113.200", "203.0.113.0/24"],
    ["an IPv4 address with spaces around it", " 198.51.100.9 ", "198.51.100.0/24"],
    ["an IPv6 address", "2001:db8:aa:bb:1:2:3:4", "2001:db8:aa:bb::/64"],
    ["a compressed IPv6 address", "2001:db8::1", "2001:db8:0:0::/64"],
    ["an IPv6 address in upper case", "2001:DB8:AA:BB::FFFF", "2001:db8:aa:bb::/64"],
    ["an IPv4-mapped IPv6 address", "::ffff:203.0.113.5", "203.0.113.0/24"],
    ["an IPv4-mapped IPv6 address in hex", "::ffff:cb00:7105", "203.0.113.0/24"],
    ["no address", "unknown", "unknown"],
  ])("maps %s to its network", (_label, address, network) => {
    expect(clientNetwork(address)).toBe(network);
  });

  it("tells apart addresses of neighbouring networks", () => {
    expect(clientNetwork("203.0.113.1")).not.toBe(clientNetwork("203.0.114.1"));
    expect(clientNetwork("2001:db8:aa:bb::1")).not.toBe(clientNetwork("2001:db8:aa:bc::1"));
  });
});
