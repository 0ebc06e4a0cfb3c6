import { describe, expect, it } from "vitest";
import { foreignServerAction, malformedRequest, undecodableServerAction } from "./malformed-request";

const headers = (values: Record<string, string>) => (name: string) => values[name] ?? null;

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
  it.each([
    [{ "next-action": "abc", origin: "https://evil.example", host: "app.example.com" }],
    [{ "next-action": "abc", origin: "null", host: "app.example.com" }],
    [{ "next-action": "abc", origin: "https://app.example.com", host: "app.example.com", "x-forwarded-host": "evil.example" }],
    // A form posted without JavaScript: Next takes any multipart POST to a page for a server action.
    [{ "content-type": "multipart/form-data; boundary=x", origin: "http://evil.example", host: "app.example.com" }],
  ])("refuses a server action from another origin with 403 and a sentence: %j", (values) => {
    const refused = foreignServerAction("POST", headers(values));
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
    [{ "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example", host: "app.example.com" }],
    [{ "content-type": "multipart/form-data; boundary=x", origin: "https://app.example.com", host: "app.example.com" }],
  ])("lets a POST with %j through", (values) => {
    expect(foreignServerAction("POST", headers(values))).toBeNull();
  });

  it("lets a GET with a multipart type through: only a POST is a form's action", () => {
    const values = { "content-type": "multipart/form-data; boundary=x", origin: "https://evil.example", host: "app.example.com" };
    expect(foreignServerAction("GET", headers(values))).toBeNull();
  });
});

describe("undecodableServerAction", () => {
  const FORM = '--b\r\nContent-Disposition: form-data; name="1_destination"\r\n\r\nhttps://example.com\r\n--b--\r\n';
  const check = (method: string, values: Record<string, string>, body: string) =>
    undecodableServerAction(method, headers(values), async () => new TextEncoder().encode(body).buffer as ArrayBuffer);

  it.each([
    ["a multipart form", { "next-action": "abc", "content-type": "multipart/form-data; boundary=b" }, FORM],
    ["arguments as a JSON array", { "next-action": "abc", "content-type": "text/plain;charset=UTF-8" }, '[["lnk_1"],"archive"]'],
  ])("lets %s through", async (_what, values, body) => {
    expect(await check("POST", values, body)).toBeNull();
  });

  it.each([
    ["a multipart form without a boundary", { "next-action": "abc", "content-type": "multipart/form-data" }, FORM],
    [
      "a multipart form cut short",
      { "next-action": "abc", "content-type": "multipart/form-data; boundary=b" },
      FORM.slice(0, 40),
    ],
    ["text that is not JSON", { "next-action": "abc" }, "0=%&1=%zz&destination=x"],
    ["JSON that is not an array of arguments", { "next-action": "abc", "content-type": "text/plain" }, '{"a":1}'],
    [
      "a form without JavaScript whose parts do not match its boundary",
      { "content-type": 'multipart/form-data; boundary="other' },
      FORM,
    ],
  ])("refuses %s with 400 and a sentence", async (_what, values, body) => {
    const refused = await check("POST", values, body);
    expect(refused?.status).toBe(400);
    expect(JSON.parse(refused!.body)).toEqual({ error: "This form's data arrived damaged; reload the page and send it again." });
  });

  it("does not read the body of anything but a server action or a form", async () => {
    const unread = () => Promise.reject(new Error("read"));
    expect(await undecodableServerAction("POST", headers({ "content-type": "text/plain" }), unread)).toBeNull();
    expect(await undecodableServerAction("GET", headers({ "next-action": "abc" }), unread)).toBeNull();
  });
});
