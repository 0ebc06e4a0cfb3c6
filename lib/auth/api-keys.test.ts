import { describe, expect, it, vi } from "vitest";

const compared = vi.hoisted(() => [] as Array<[number, number]>);

vi.mock("node:crypto", async (importOriginal) => {
  const crypto = await importOriginal<typeof import("node:crypto")>();
  const timingSafeEqual: typeof crypto.timingSafeEqual = (left, right) => {
    compared.push([left.byteLength, right.byteLength]);
    return crypto.timingSafeEqual(left, right);
  };
  return { ...crypto, default: { ...crypto, timingSafeEqual }, timingSafeEqual };
});

const { constantTimeEqual, generateApiKey, hasValidFormat } = await import("./api-keys");

describe("constantTimeEqual", () => {
  it("tells equal from unequal secrets, whatever their lengths", () => {
    expect(constantTimeEqual("Bearer s3cret-token", "Bearer s3cret-token")).toBe(true);
    expect(constantTimeEqual("", "")).toBe(true);
    expect(constantTimeEqual("Bearer s3cret-token", "Bearer s3cret-tokeN")).toBe(false);
    expect(constantTimeEqual("Bearer s3cret-token", "Bearer s3cret")).toBe(false);
    expect(constantTimeEqual("", "Bearer s3cret-token")).toBe(false);
  });

  it("compares fixed-length digests, so a difference in length does not return early", () => {
    compared.length = 0;
    constantTimeEqual("short", "a much longer candidate secret of another length");
    constantTimeEqual("", "x".repeat(10_000));
    constantTimeEqual("same length!", "same length?");
    expect(compared).toEqual([
      [32, 32],
      [32, 32],
      [32, 32],
    ]);
  });
});

describe("API key format", () => {
  it("accepts a generated key and refuses one with a changed character", () => {
    const key = generateApiKey("plk");
    expect(hasValidFormat(key, "plk")).toBe(true);
    const tampered = key.slice(0, 10) + (key[10] === "A" ? "B" : "A") + key.slice(11);
    expect(hasValidFormat(tampered, "plk")).toBe(false);
    expect(hasValidFormat(key.slice(0, -1), "plk")).toBe(false);
  });
});
