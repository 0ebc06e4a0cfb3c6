import { type Browser, type Page } from "@playwright/test";
import pg from "pg";
import { expect, test } from "./support/fixtures";
import { baseUrl, subscribedSession } from "./support/helpers";

/**
 * Loading states, made deterministic: the test itself holds a lock on a table that only the slow
 * part of a page reads (PostgreSQL's ACCESS EXCLUSIVE lock makes every read of it wait), so that
 * part cannot arrive until the test lets go, whatever the machine's speed and whichever of Next's
 * prefetches ran. The page must show its loading state meanwhile, and its content after.
 */
test.describe.configure({ mode: "serial" });

const PERSON = "waiting@permalink.test";

let browser: Browser;
let page: Page;
let consoleErrors: string[];
let linkId: string;

test.beforeAll(async () => {
  ({ browser, page, consoleErrors } = await subscribedSession(PERSON));
  await page.goto("/dashboard");
  await page.getByLabel("Destination", { exact: true }).fill("https://example.com/waiting");
  await page.getByLabel("Custom slug (optional)").fill("waits-here");
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.getByTestId("created-short-url")).toHaveText(`${baseUrl()}/waits-here`);
  await page.goto("/dashboard");
  const href = await page
    .getByRole("link", { name: /\/waits-here$/ })
    .first()
    .getAttribute("href");
  linkId = href!.split("/").at(-1)!;
});

test.afterAll(() => browser.close());
test.afterEach(() => expect(consoleErrors).toEqual([]));

/** Runs `body` while the test's own transaction holds `table` locked against reads, then lets go. */
async function whileLocked(table: string, body: (release: () => Promise<void>) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
  await client.connect();
  let held = true;
  const release = async () => {
    if (!held) return;
    held = false;
    await client.query("ROLLBACK");
  };
  try {
    await client.query("BEGIN");
    await client.query(`LOCK TABLE "${table}" IN ACCESS EXCLUSIVE MODE`);
    await body(release);
  } finally {
    await release();
    await client.end();
  }
}

test("the links list shows its loading state until its links can be read, on a first load and on a click", async () => {
  const loading = page.getByRole("status").filter({ hasText: "Loading your links…" });
  const list = page.getByRole("link", { name: /\/waits-here$/ });

  // A first load: the frame and the loading state arrive while the list waits on its tags.
  await whileLocked("tags", async (release) => {
    const response = await page.goto("/dashboard", { waitUntil: "commit" });
    expect(response!.status()).toBe(200);
    await expect(page.getByRole("navigation", { name: "Dashboard" })).toBeVisible();
    await expect(loading).toBeAttached();
    await expect(list).toHaveCount(0);
    await release();
    await expect(list.first()).toBeVisible();
    await expect(loading).toHaveCount(0);
  });

  // A click on the Links tab from another page: the loading state, then the list.
  await page.goto("/dashboard/members");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await whileLocked("tags", async (release) => {
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Links" }).click();
    await expect(loading).toBeAttached();
    await expect(list).toHaveCount(0);
    await release();
    await expect(list.first()).toBeVisible();
    await expect(loading).toHaveCount(0);
  });
});

test("a link's page shows the link at once and its tools after their loading state; a missing link is a 404 meanwhile", async () => {
  const loading = page.getByRole("status").filter({ hasText: "Loading the link's tools…" });
  const qr = page.getByRole("heading", { name: "QR code" });
  await whileLocked("link_qr_designs", async (release) => {
    const response = await page.goto(`/dashboard/links/${linkId}`, { waitUntil: "commit" });
    expect(response!.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1, name: /\/waits-here$/ })).toBeVisible();
    await expect(page.getByTestId("link-destination")).toHaveText("https://example.com/waiting");
    await expect(loading).toBeAttached();
    await expect(qr).toHaveCount(0);

    // The slow part is stuck, yet a link that is not there is answered in full, with 404.
    const missing = await page.request.get("/dashboard/links/lnk_notalinkofyours");
    expect(missing.status()).toBe(404);
    expect(await missing.text()).toContain("Nothing here");

    await release();
    await expect(qr).toBeVisible();
    await expect(loading).toHaveCount(0);
  });
});
