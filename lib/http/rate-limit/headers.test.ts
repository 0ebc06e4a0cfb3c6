import { describe, expect, it } from "vitest";
import { rateLimitHeaders } from "./headers";

const NOW = 1_700_000_000_000;

describe("rateLimitHeaders", () => {
  it("omits Retry-After when the write is allowed", () => {
    const headers = rateLimitHeaders({ success: true, limit: 60, remaining: 12, resetAt: NOW + 34_000 }, NOW);

    expect(headers).toEqual({ "RateLimit-Policy": '"writes";q=60;w=60', RateLimit: '"writes";r=12;t=34' });
  });

  it("adds Retry-After equal to the reset delay when refused, rounding up to whole seconds", () => {
    const headers = rateLimitHeaders({ success: false, limit: 60, remaining: 0, resetAt: NOW + 12_001 }, NOW);

    expect(headers).toEqual({
      "RateLimit-Policy": '"writes";q=60;w=60',
      RateLimit: '"writes";r=0;t=13',
      "Retry-After": "13",
    });
  });

  it("asks a refused client to wait at least one second", () => {
    const headers = rateLimitHeaders({ success: false, limit: 5, remaining: 0, resetAt: NOW - 500 }, NOW);

    expect(headers["Retry-After"]).toBe("1");
    expect(headers.RateLimit).toBe('"writes";r=0;t=1');
  });

  it("never reports a negative reset delay", () => {
    const headers = rateLimitHeaders({ success: true, limit: 5, remaining: 5, resetAt: NOW - 500 }, NOW);

    expect(headers.RateLimit).toBe('"writes";r=5;t=0');
  });
});
