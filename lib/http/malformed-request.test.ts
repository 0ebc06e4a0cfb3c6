import { describe, expect, it } from "vitest";
import { foreignServerAction, malformedRequest } from "./malformed-request";

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

describe("foreignServerAction", () => {
  const headers = (values: Record<string, string>) => (name: string) => values[name] ?? null;

  it.each([
    [{ "next-action": "abc", origin: "https://evil.example", host: "app.example.com" }],
    [{ "next-action": "abc", origin: "null", host: "app.example.com" }],
    [{ "next-action": "abc", origin: "https://app.example.com", host: "app.example.com", "x-forwarded-host": "evil.example" }],
  ])("refuses a server action from another origin with 403 and a sentence: %j", (values) => {
    const refused = foreignServerAction(headers(values));
    expect(refused?.status).toBe(403);
    expect(JSON.parse(refused!.body)).toEqual({
      error: "This form was sent from a page of another site; open the page on this site and send it again.",
    });
  });

  it.each([
    [{ "next-action": "abc", origin: "https://app.example.com", host: "app.example.com" }],
    [{ "next-action": "abc", origin: "http://localhost:3000", host: "localhost:3000" }],
    [{ "next-action": "abc", host: "app.example.com" }],
    [{ origin: "https://evil.example", host: "app.example.com" }],
  ])("lets %j through", (values) => {
    expect(foreignServerAction(headers(values))).toBeNull();
  });
});
