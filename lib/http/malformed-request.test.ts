import { describe, expect, it } from "vitest";
import { malformedRequest } from "./malformed-request";

describe("malformedRequest, the check both doors make first", () => {
  it.each(["/api/links/%", "/api/links/%zz", "/api/links/%FF", "/api/links/%C0%80", "/billing/local/portal/%/change", "/abc%"])(
    "refuses the malformed escape in %s with 400 JSON",
    (path) => {
      const refused = malformedRequest("GET", path);

      expect(refused?.status).toBe(400);
      expect(refused?.headers["Content-Type"]).toMatch(/^application\/json/);
      expect(JSON.parse(refused!.body)).toEqual({ error: expect.stringContaining("malformed percent-escape") });
    },
  );

  it.each(["TRACE", "CONNECT", "PROPFIND", "get"])("refuses the method %s with 400 JSON", (method) => {
    const refused = malformedRequest(method, "/api/links");

    expect(refused?.status).toBe(400);
    expect(JSON.parse(refused!.body)).toEqual({ error: expect.stringContaining(`does not take ${method} requests`) });
  });

  it.each([
    ["GET", "/api/links/%00"],
    ["POST", "/api/links"],
    ["HEAD", "/abc2345"],
    ["OPTIONS", "/api/links/%E2%9C%93"],
    ["DELETE", "/a%2Fb"],
  ])("lets %s %s through", (method, path) => {
    expect(malformedRequest(method, path)).toBeNull();
  });
});
