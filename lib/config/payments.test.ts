import { ConfigError, parseConfig } from "@/lib/config";
import { describe, expect, it } from "vitest";
import { atomicAmount } from "./payments";

describe("payment configuration", () => {
  it("defaults to USDC on Base Sepolia through the public testnet facilitator, with no recipient or secret", () => {
    expect(parseConfig({})).toMatchObject({
      LINK_PRICE: "0.50",
      PAYMENT_NETWORK: "eip155:84532",
      PAYMENT_ASSET: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
      PAYMENT_ASSET_NAME: "USDC",
      PAYMENT_ASSET_VERSION: "2",
      PAYMENT_ASSET_DECIMALS: 6,
      X402_FACILITATOR_URL: "https://x402.org/facilitator",
    });
    expect(parseConfig({}).PAYMENT_RECIPIENT).toBeUndefined();
    expect(parseConfig({}).MPP_SECRET_KEY).toBeUndefined();
  });

  it.each([
    ["LINK_PRICE", "free", /LINK_PRICE must be a decimal number/],
    ["LINK_PRICE", "0", /LINK_PRICE must be more than zero/],
    ["PAYMENT_NETWORK", "base", /PAYMENT_NETWORK must be a CAIP-2 EVM network/],
    ["PAYMENT_ASSET", "0x1234", /PAYMENT_ASSET must be a 0x-prefixed 20-byte hex address/],
    ["PAYMENT_RECIPIENT", "alice.eth", /PAYMENT_RECIPIENT must be a 0x-prefixed 20-byte hex address/],
    ["X402_FACILITATOR_URL", "ftp://facilitator", /X402_FACILITATOR_URL must be an http\(s\) URL/],
    ["MPP_SECRET_KEY", "short", /MPP_SECRET_KEY must be at least 32 characters \(got a value that is not shown\)/],
  ])("refuses %s=%s in one line naming it", (variable, value, message) => {
    expect(() => parseConfig({ [variable]: value })).toThrow(message);
  });

  it("converts the price to the asset's atomic units, and refuses one finer than the asset", () => {
    expect(atomicAmount("0.50", 6)).toBe("500000");
    expect(atomicAmount("2", 6)).toBe("2000000");
    expect(atomicAmount("0.000001", 6)).toBe("1");
    expect(() => atomicAmount("0.0000001", 6)).toThrow(ConfigError);
    expect(() => atomicAmount("0.0000001", 6)).toThrow(/LINK_PRICE has more decimal places than PAYMENT_ASSET_DECIMALS \(6\)/);
  });
});
