import { MAX_IMPORT_BYTES } from "@/lib/imports/schemas";
import { MAX_LOGO_UPLOAD_BYTES } from "@/lib/logos/limits";
import { PROXY_BODY_LIMIT_BYTES } from "@/next.config";
import { describe, expect, it } from "vitest";

describe("the proxy's copy of request bodies", () => {
  it("passes on the largest body a route takes whole, and one over its limit still over it", () => {
    const largestTaken = Math.max(MAX_IMPORT_BYTES, MAX_LOGO_UPLOAD_BYTES);
    // Next drops the chunk that crosses its limit (up to 64 KiB from a socket): what arrives is still over the route's.
    expect(PROXY_BODY_LIMIT_BYTES - 64 * 1024).toBeGreaterThan(largestTaken);
  });
});
