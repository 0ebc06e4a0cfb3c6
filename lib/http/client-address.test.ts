import { resetConfig } from "@/lib/config";
import { afterEach, describe, expect, it } from "vitest";
import { behindFrontDoor, clientAddress, clientNetwork } from "./client-address";

describe("the client address", () => {
  const configuredHops = process.env.TRUSTED_PROXY_HOPS;
  afterEach(() => {
    if (configuredHops === undefined) delete process.env.TRUSTED_PROXY_HOPS;
    else process.env.TRUSTED_PROXY_HOPS = configuredHops;
    resetConfig();
    behindFrontDoor.reset();
  });

  function proxiesInFront(hops: number) {
    process.env.TRUSTED_PROXY_HOPS = String(hops);
    resetConfig();
  }

  const addressOf = (headers: Record<string, string>) =>
    clientAddress(new Request("http://app.test.example/api/links", { headers }));

  it("trusts no header under bare next start with no proxy in front: Next passes on what the client sent", () => {
    proxiesInFront(0);
    expect(addressOf({ "x-forwarded-for": "203.0.113.9" })).toBe("unknown");
    expect(addressOf({ "x-forwarded-for": "203.0.113.9, 198.51.100.4" })).toBe("unknown");
    expect(addressOf({ "x-real-ip": "203.0.113.9" })).toBe("unknown");
    expect(addressOf({})).toBe("unknown");
  });

  it("takes the entry the outermost of TRUSTED_PROXY_HOPS proxies wrote, never one the client wrote before it", () => {
    proxiesInFront(1);
    expect(addressOf({ "x-forwarded-for": "203.0.113.9" })).toBe("203.0.113.9");
    expect(addressOf({ "x-forwarded-for": "10.9.9.9, 203.0.113.9" })).toBe("203.0.113.9");
    proxiesInFront(2);
    expect(addressOf({ "x-forwarded-for": "10.9.9.9, 203.0.113.9, 198.51.100.4" })).toBe("203.0.113.9");
    // X-Real-IP stands in only when the proxies in front sent no X-Forwarded-For at all.
    expect(addressOf({ "x-real-ip": " 203.0.113.7 " })).toBe("203.0.113.7");
    expect(addressOf({ "x-forwarded-for": "203.0.113.9, 198.51.100.4", "x-real-ip": "10.9.9.9" })).toBe("203.0.113.9");
  });

  it("counts a caller by the address a proxy wrote, not the port it may write after it (ip:port, [ipv6]:port)", () => {
    proxiesInFront(1);
    expect(addressOf({ "x-forwarded-for": "10.9.9.9, 203.0.113.9:51234" })).toBe("203.0.113.9");
    expect(addressOf({ "x-forwarded-for": "[2001:db8::7]:51234" })).toBe("2001:db8::7");
    expect(addressOf({ "x-forwarded-for": "[2001:db8::7]" })).toBe("2001:db8::7");
    expect(addressOf({ "x-forwarded-for": "2001:db8::7" })).toBe("2001:db8::7");
  });

  it("behind the front door, trusts the socket's peer it appends, after the proxies in front", () => {
    behindFrontDoor.set(true);
    proxiesInFront(0);
    expect(addressOf({ "x-forwarded-for": "10.9.9.9, 198.51.100.4" })).toBe("198.51.100.4");
    proxiesInFront(1);
    expect(addressOf({ "x-forwarded-for": "10.9.9.9, 203.0.113.9, 198.51.100.4" })).toBe("203.0.113.9");
  });
});

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
