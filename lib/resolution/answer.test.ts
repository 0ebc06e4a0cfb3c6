import { describe, expect, it } from "vitest";
import { answerFor } from "./answer";
import type { ResolvedLink, Visit } from "./types";

const visit = (method: Visit["method"], slug: string) => ({ method, slug, forward: new URLSearchParams() }) as Visit;

describe("answerFor", () => {
  it("answers every unknown code with one frozen answer per method, HEAD with GET's headers and no body", () => {
    const get = answerFor({ kind: "not_found" }, visit("GET", "abc"));
    expect(answerFor({ kind: "not_found" }, visit("GET", "xyz"))).toBe(get);
    expect(Object.isFrozen(get) && Object.isFrozen(get.headers)).toBe(true);
    const head = answerFor({ kind: "not_found" }, visit("HEAD", "abc"));
    expect(head).toMatchObject({ status: 404, headers: get.headers, body: "" });
    expect(get.headers["Content-Length"]).toBe(String(Buffer.byteLength(get.body)));
  });

  it("answers the unavailable page the same way, with Retry-After", () => {
    const [get, head] = (["GET", "HEAD"] as const).map((method) => answerFor({ kind: "unavailable" }, visit(method, "abc")));
    expect(get).toMatchObject({ status: 503, headers: { "Retry-After": "30" } });
    expect(head).toMatchObject({ status: 503, headers: get!.headers, body: "" });
    expect(Object.isFrozen(head)).toBe(true);
  });

  it("gives every redirect its own headers, with its own Content-Length", () => {
    const redirect = (location: string) =>
      answerFor({ kind: "redirect", link: {} as ResolvedLink, location, servedRule: null }, visit("GET", "abc"));
    const short = redirect("https://example.com/a");
    const long = redirect("https://example.com/a-much-longer-path");
    expect(short.headers).not.toBe(long.headers);
    expect(short.headers["Content-Length"]).toBe("21");
    expect(long.headers["Content-Length"]).toBe("38");
    expect(short.headers).toMatchObject({ Location: "https://example.com/a", "Cache-Control": "no-store" });
  });

  it("marks a body ASCII exactly when it has as many bytes as characters, HEAD by GET's body", () => {
    const redirect = (location: string, method: Visit["method"] = "GET") =>
      answerFor({ kind: "redirect", link: {} as ResolvedLink, location, servedRule: null }, visit(method, "abc"));
    expect(redirect("https://example.com/menu").ascii).toBe(true);
    expect(redirect("https://example.com/caf\u00e9").ascii).toBe(false);
    expect(redirect("https://example.com/\ud800").ascii).toBe(false);
    expect(redirect("https://example.com/caf\u00e9", "HEAD")).toMatchObject({ body: "", ascii: false });
    const blocked = answerFor(
      { kind: "blocked", link: { abuseReason: "hame\u00e7onnage" } as ResolvedLink },
      visit("GET", "abc"),
    );
    expect(blocked.ascii).toBe(true);
    expect(answerFor({ kind: "not_found" }, visit("GET", "abc")).ascii).toBe(true);
  });

  it.each([
    ["the abuse warning", { kind: "blocked", link: { abuseReason: "phishing" } as ResolvedLink }],
    ["the unknown code", { kind: "not_found" }],
    ["the unavailable", { kind: "unavailable" }],
  ] as const)("forbids framing %s page (frame-ancestors 'none')", (_name, outcome) => {
    const policy = answerFor(outcome, visit("GET", "abc")).headers["Content-Security-Policy"]!;
    expect(policy.split("; ")).toContain("frame-ancestors 'none'");
  });
});
