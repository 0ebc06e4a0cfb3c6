import { startApp, type RunningApp } from "@/server/app-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newUser } from "../support/api";
import { testAppEnv } from "../support/app-env";

const REQUEST_TIMEOUT_MS = 30_000;

let app: RunningApp;

beforeAll(async () => {
  app = await startApp("front", {
    ...testAppEnv(),
    BILLING_PROVIDER: "local",
    RECHECK_INTERVAL_SECONDS: "0",
  });
}, 300_000);

afterAll(async () => {
  await app?.stop();
});

type Policy = Map<string, string[]>;

function parsePolicy(header: string): Policy {
  return new Map(
    header
      .split(";")
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name!.toLowerCase(), sources]),
  );
}

/** The sources a directive allows, falling back to default-src as browsers do. */
function sourcesFor(policy: Policy, directive: string): string[] {
  return policy.get(directive) ?? policy.get("default-src") ?? [];
}

/** Whether a browser enforcing `policy` on a page at `pageUrl` would load `resourceUrl` under `directive`. */
function allowsUrl(policy: Policy, directive: string, pageUrl: string, resourceUrl: string): boolean {
  const sources = sourcesFor(policy, directive);
  if (sources.includes("'none'")) return false;
  const resource = new URL(resourceUrl, pageUrl);
  if (sources.includes("'self'") && resource.origin === new URL(pageUrl).origin) return true;
  return sources.some((source) => !source.startsWith("'") && resource.href.startsWith(source));
}

function attribute(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}="([^"]*)"`, "i").exec(tag)?.[1]?.replaceAll("&amp;", "&");
}

async function pagePaths(): Promise<string[]> {
  const { token } = await newUser("csp", { subscription: false });
  const checkout = await fetch(`${app.url}/api/billing/checkout`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: "{}",
  });
  expect(checkout.status).toBe(200);
  const checkoutPage = new URL((await checkout.json()).url).pathname;
  return ["/", "/docs", "/docs/payments", "/billing/return?checkout=cancelled", checkoutPage];
}

describe("security headers on the app's pages (production build)", () => {
  it("sends CSP with frame-ancestors 'none', nosniff, a referrer policy and HSTS on every page", async () => {
    for (const path of await pagePaths()) {
      const response = await fetch(`${app.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type"), path).toMatch(/^text\/html/);
      const policy = parsePolicy(response.headers.get("content-security-policy") ?? "");
      expect(policy.get("frame-ancestors"), path).toEqual(["'none'"]);
      expect(policy.get("object-src"), path).toEqual(["'none'"]);
      expect(policy.get("base-uri"), path).toEqual(["'self'"]);
      expect(policy.get("form-action"), path).toEqual(["'self'"]);
      expect(sourcesFor(policy, "script-src"), path).not.toContain("'unsafe-eval'");
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(response.headers.get("referrer-policy"), path).toBe("strict-origin-when-cross-origin");
      expect(response.headers.get("strict-transport-security"), path).toMatch(/^max-age=\d{8,}/);
    }
  }, 60_000);

  it("lets every script, stylesheet and form of the pages through the policy, each served with its real type", async () => {
    for (const path of await pagePaths()) {
      const pageUrl = `${app.url}${path}`;
      const response = await fetch(pageUrl);
      const policy = parsePolicy(response.headers.get("content-security-policy") ?? "");
      const html = await response.text();

      const scripts = [...html.matchAll(/<script\b[^>]*>/gi)].map(([tag]) => tag);
      expect(scripts.length, `${path} has Next's scripts`).toBeGreaterThan(0);
      for (const tag of scripts) {
        const src = attribute(tag, "src");
        if (src === undefined) {
          // Next streams page data in inline scripts; without them the page does not hydrate.
          expect(sourcesFor(policy, "script-src"), `inline script on ${path}`).toContain("'unsafe-inline'");
          continue;
        }
        expect(allowsUrl(policy, "script-src", pageUrl, src), `${src} on ${path}`).toBe(true);
        const script = await fetch(new URL(src, pageUrl));
        expect(script.status, src).toBe(200);
        // With nosniff, a browser runs a script only when it is served as JavaScript.
        expect(script.headers.get("content-type"), src).toMatch(/^(application|text)\/javascript/);
      }

      for (const [tag] of html.matchAll(/<link\b[^>]*rel="stylesheet"[^>]*>/gi)) {
        const href = attribute(tag, "href")!;
        expect(allowsUrl(policy, "style-src", pageUrl, href), `${href} on ${path}`).toBe(true);
        const stylesheet = await fetch(new URL(href, pageUrl));
        expect(stylesheet.status, href).toBe(200);
        expect(stylesheet.headers.get("content-type"), href).toMatch(/^text\/css/);
      }
      if (/<style\b|\sstyle="/i.test(html))
        expect(sourcesFor(policy, "style-src"), `inline style on ${path}`).toContain("'unsafe-inline'");

      for (const [tag] of html.matchAll(/<form\b[^>]*>/gi)) {
        const action = attribute(tag, "action") ?? path;
        expect(allowsUrl(policy, "form-action", pageUrl, action), `form to ${action} on ${path}`).toBe(true);
      }
    }
  }, 60_000);

  it(
    "keeps the API's JSON answers typed and unsniffable too",
    async () => {
      const response = await fetch(`${app.url}/api/openapi.json`);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    },
    REQUEST_TIMEOUT_MS,
  );
});
