import { startApp, type RunningApp } from "@/server/app-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newUser } from "../support/api";
import { testAppEnv } from "../support/app-env";

const REQUEST_TIMEOUT_MS = 30_000;

let localBilling: RunningApp;
let noBilling: RunningApp;

function post(url: string, options: { token?: string; json?: unknown; form?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.json !== undefined) headers["content-type"] = "application/json";
  if (options.form !== undefined) headers["content-type"] = "application/x-www-form-urlencoded";
  const body = options.json !== undefined ? JSON.stringify(options.json) : options.form;
  return fetch(url, { method: "POST", headers, body, redirect: "manual" });
}

beforeAll(async () => {
  const env = { ...testAppEnv(), RECHECK_INTERVAL_SECONDS: "0" };
  [localBilling, noBilling] = await Promise.all([
    startApp("front", { ...env, BILLING_PROVIDER: "local" }),
    startApp("front", env),
  ]);
}, 300_000);

afterAll(async () => {
  await Promise.all([localBilling?.stop(), noBilling?.stop()]);
});

describe("billing on the production server", () => {
  it(
    "runs the local provider only when asked, warns in the log, and its checkout page and form work over HTTP",
    async () => {
      expect(localBilling.output()).toMatch(/WARNING: BILLING_PROVIDER=local on a production deployment/);
      const { token } = await newUser("server-billing", { subscription: false });
      expect(
        (await post(`${localBilling.url}/api/links`, { token, json: { destination: "https://example.com/unpaid" } })).status,
      ).toBe(402);

      const checkout = await post(`${localBilling.url}/api/billing/checkout`, { token, json: { plan: "starter" } });
      expect(checkout.status).toBe(200);
      const { url } = await checkout.json();
      const path = new URL(url).pathname;
      const page = await fetch(`${localBilling.url}${path}`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      const html = await page.text();
      expect(html).toContain("19.00 AUD a month");
      expect(html).toContain("The local billing provider takes no payment");
      const action = /<form [^>]*action="([^"]+)"/.exec(html)?.[1];
      expect(action).toBe(`${path}/complete`);

      const submitted = await post(`${localBilling.url}${action}`, { form: "" });
      expect(submitted.status).toBe(303);
      expect(submitted.headers.get("location")).toBe(path);
      expect(
        (await post(`${localBilling.url}/api/links`, { token, json: { destination: "https://example.com/paid" } })).status,
      ).toBe(201);
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "has no billing provider in production without Stripe or BILLING_PROVIDER=local: checkout answers 503",
    async () => {
      expect(noBilling.output()).toMatch(/Billing is not set up/);
      const { token } = await newUser("server-billing", { subscription: false });

      const checkout = await post(`${noBilling.url}/api/billing/checkout`, { token, json: {} });

      expect(checkout.status).toBe(503);
      expect(await checkout.json()).toEqual({ error: expect.stringMatching(/Billing is not set up/) });
    },
    REQUEST_TIMEOUT_MS,
  );
});
