import { type Browser, type Page } from "@playwright/test";
import { readFile } from "node:fs/promises";
import sharp from "sharp";
import { decodeQr } from "../tests/support/images";
import { expect, test } from "./support/fixtures";
import {
  baseUrl,
  capturePage,
  formShareOfFirstScreen,
  signInByMagicLink,
  subscribedSession,
  watchConsole,
} from "./support/helpers";

/**
 * The dashboard's tools for a workspace with links: saved QR designs, the links list's row menu,
 * sorting and selection, analytics. One person signs in and subscribes once; each test makes its own links.
 */
// Many page loads each, on a machine shared by several builds: three times the suite's minute.
test.describe.configure({ mode: "serial", timeout: 180_000 });

const PERSON = "tools@permalink.test";
const USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

let browser: Browser;
let page: Page;
let consoleErrors: string[];

test.beforeAll(async () => {
  ({ browser, page, consoleErrors } = await subscribedSession(PERSON, {
    userAgent: USER_AGENT,
    permissions: ["clipboard-read", "clipboard-write"],
  }));
});

test.afterAll(() => browser.close());
test.afterEach(() => expect(consoleErrors).toEqual([]));

/** Creates a link through the dashboard's form and returns its short URL. */
async function createLink(destination: string, slug: string): Promise<string> {
  await page.goto("/dashboard");
  await page.getByLabel("Destination", { exact: true }).fill(destination);
  await page.getByLabel("Custom slug (optional)").fill(slug);
  await page.getByRole("button", { name: "Create link" }).click();
  const created = page.getByTestId("created-short-url");
  await expect(created).toHaveText(`${baseUrl()}/${slug}`);
  return (await created.textContent())!;
}

/** Opens a link's page from its row in the list. */
async function openLink(slug: string): Promise<void> {
  await page.goto("/dashboard");
  await page
    .getByRole("row", { name: new RegExp(slug) })
    .getByRole("link", { name: new RegExp(`/${slug}$`) })
    .click();
  await expect(page.getByRole("heading", { name: "QR code" })).toBeVisible();
}

async function downloadPng(): Promise<Buffer> {
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download PNG" }).click(),
  ]);
  return readFile((await download.path())!);
}

test("saves a link's QR design and a workspace default, which the next visit and the plain download reuse", async ({}, testInfo) => {
  const shortUrl = await createLink("https://example.com/designed", "designed-code");
  await openLink("designed-code");
  await expect(page.getByTestId("qr-design-source")).toHaveText(/Nothing is saved yet/);
  await expect(page.getByText("Margin (modules)")).toHaveCount(0);
  await expect(page.getByText(/Level [LMQH]/)).toHaveCount(0);
  await expect(page.getByLabel("Error correction")).toHaveAccessibleDescription(/covered or damaged and still scan/);
  await expect(page.getByLabel("Quiet zone")).toHaveAccessibleDescription(/blank border around the code/);

  await page.getByLabel("Size (pixels)").fill("480");
  await page.getByLabel("Quiet zone").fill("4");
  // Colours many scanners cannot read are said beside the colour fields as they change, not after a download.
  await page.getByLabel("Foreground colour").fill("#c8c8c8");
  await expect(page.getByLabel("Foreground colour")).toHaveAccessibleDescription(/contrast ratio of 1\.67:1/);
  await expect(page.getByLabel("Background colour")).toHaveAccessibleDescription(/contrast ratio of 1\.67:1/);
  await page.getByLabel("Foreground colour").fill("#1a3d7c");
  await expect(page.getByLabel("Foreground colour")).not.toHaveAccessibleDescription(/scan/);
  await page.getByLabel("Error correction").selectOption({ label: "Highest: 30% may be damaged" });
  await page.getByRole("button", { name: "Save for this link" }).click();
  await expect(page.getByRole("status").filter({ hasText: "this link's code now downloads with these options" })).toBeVisible();
  await capturePage(page, testInfo, "link-qr-design");

  await openLink("designed-code");
  await expect(page.getByTestId("qr-design-source")).toHaveText("These are this link's saved options.");
  await expect(page.getByLabel("Size (pixels)")).toHaveValue("480");
  await expect(page.getByLabel("Quiet zone")).toHaveValue("4");
  await expect(page.getByLabel("Foreground colour")).toHaveValue("#1a3d7c");
  await expect(page.getByLabel("Error correction")).toHaveValue("H");
  const image = await downloadPng();
  expect((await sharp(image).metadata()).width).toBe(480);
  expect(await decodeQr(image)).toBe(`${shortUrl}?qr`);

  // The plain address, with no option at all, draws the saved design.
  const linkId = page.url().split("/").at(-1)!;
  const plain = await page.request.get(`/dashboard/links/${linkId}/qr?format=png`);
  expect((await sharp(await plain.body()).metadata()).width).toBe(480);

  // A workspace default reaches a new link that has no design of its own.
  await page.getByLabel("Size (pixels)").fill("320");
  await page.getByRole("button", { name: "Save as workspace default" }).click();
  await expect(page.getByRole("status").filter({ hasText: "workspace's default" })).toBeVisible();
  await createLink("https://example.com/standard", "standard-code");
  await openLink("standard-code");
  await expect(page.getByTestId("qr-design-source")).toHaveText(/workspace's default options/);
  await expect(page.getByLabel("Size (pixels)")).toHaveValue("320");
  expect((await sharp(await downloadPng()).metadata()).width).toBe(320);
});

test("the links list: row menu, order by creation or scans, creation time, and archiving several at once", async ({}, testInfo) => {
  const slugs = ["menu-first", "menu-second", "menu-third"];
  for (const slug of slugs) await createLink(`https://example.com/${slug}`, slug);
  // Scans for the middle one: two visits through its short URL.
  for (let visit = 0; visit < 2; visit++) await page.request.get(`${baseUrl()}/menu-second`, { maxRedirects: 0 });

  await page.goto("/dashboard");
  const rows = page.locator("main table tbody tr");
  await expect(rows.first()).toContainText("menu-third");
  await expect(page.getByRole("row", { name: /menu-first/ }).locator("time")).toHaveText(/\d{4}, \d{1,2}:\d{2}/);
  await page.getByRole("link", { name: "Oldest first" }).click();
  await expect(page).toHaveURL(/sort=oldest/);
  const oldest = await rows.allTextContents();
  expect(oldest.findIndex((text) => text.includes("menu-first"))).toBeLessThan(
    oldest.findIndex((text) => text.includes("menu-third")),
  );
  // Until both visits are written: before that the three links tie at 0 and any may come first.
  await expect(async () => {
    await page.goto("/dashboard?sort=scans");
    await expect(rows.first()).toContainText("menu-second", { timeout: 1000 });
    await expect(
      page
        .getByRole("row", { name: /menu-second/ })
        .locator("td")
        .nth(7),
    ).toHaveText("2", { timeout: 1000 });
  }).toPass({ timeout: 30_000 });

  const row = page.getByRole("row", { name: /menu-second/ });
  const openMenu = () => row.getByRole("button", { name: /^Actions for / }).click();
  await openMenu();
  await row.getByRole("menuitem", { name: "Copy short link" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${baseUrl()}/menu-second`);
  await openMenu();
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    row.getByRole("menuitem", { name: "Download QR code" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe("qr-menu-second.png");
  expect(await decodeQr(await readFile((await download.path())!))).toBe(`${baseUrl()}/menu-second?qr`);
  await openMenu();
  await expect(row.getByRole("menuitem", { name: "Analytics" })).toHaveAttribute("href", /\/dashboard\/analytics\?link_id=lnk_/);
  await expect(row.getByRole("menuitem", { name: "Repoint" })).toHaveAttribute(
    "href",
    /\/dashboard\/links\/lnk_.*#repoint-heading$/,
  );
  await page.keyboard.press("Escape");
  await capturePage(page, testInfo, "links-ordered-by-scans");

  // On a phone each link is a card with its short link, destination, status and scans, and the same menu.
  await page.setViewportSize({ width: 375, height: 740 });
  const card = page
    .getByRole("list", { name: /^Links, most scans first/ })
    .getByRole("listitem")
    .filter({ hasText: "menu-second" });
  await expect(card.getByRole("link", { name: /\/menu-second$/ })).toBeVisible();
  await expect(card).toContainText("https://example.com/menu-second");
  await expect(card.getByRole("button", { name: /^New: checked live:/ })).toBeVisible();
  await expect(card).toContainText("2 scans in");
  await card.getByRole("button", { name: /^Actions for / }).click();
  await expect(card.getByRole("menuitem", { name: "Analytics" })).toBeVisible();
  await page.keyboard.press("Escape");
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.goto("/dashboard");
  await page.getByRole("checkbox", { name: /Select .*menu-first$/ }).check();
  await page.getByRole("checkbox", { name: /Select .*menu-third$/ }).check();
  await expect(page.getByText("2 selected")).toBeVisible();
  await page.getByRole("button", { name: "Archive selected" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Archived 2 links" })).toBeVisible();
  await expect(page.getByRole("row", { name: /menu-first|menu-third/ })).toHaveCount(0);
  // Archiving is undoable from its own notice; then archived again for what follows.
  await page.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Restored 2 links" })).toBeVisible();
  await expect(page.getByRole("row", { name: /menu-first|menu-third/ })).toHaveCount(2);
  await page.getByRole("checkbox", { name: /Select .*menu-first$/ }).check();
  await page.getByRole("checkbox", { name: /Select .*menu-third$/ }).check();
  await page.getByRole("button", { name: "Archive selected" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Archived 2 links" })).toBeVisible();
  await expect(page.getByRole("row", { name: /menu-first|menu-third/ })).toHaveCount(0);
  await page.goto("/dashboard?view=archived");
  await expect(page.getByRole("row", { name: /menu-first/ })).toBeVisible();
  await expect(page.getByRole("row", { name: /menu-third/ })).toBeVisible();
  // Archived links keep resolving.
  expect((await page.request.get(`${baseUrl()}/menu-first`, { maxRedirects: 0 })).status()).toBe(302);

  const archivedRow = page.getByRole("row", { name: /menu-first/ });
  await archivedRow.getByRole("button", { name: /^Actions for / }).click();
  await archivedRow.getByRole("menuitem", { name: "Restore" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Restored 1 link" })).toBeVisible();
  await expect(page.getByRole("row", { name: /menu-first/ })).toHaveCount(0);
  await page.goto("/dashboard");
  await expect(page.getByRole("row", { name: /menu-first/ })).toBeVisible();
});

test("analytics name the link, list the top links, and show uniques only where they are distinct visitors", async ({}, testInfo) => {
  await createLink("https://example.com/counted", "counted-code");
  for (let visit = 0; visit < 3; visit++) await page.request.get(`${baseUrl()}/counted-code`, { maxRedirects: 0 });
  const topLinks = page.getByRole("region", { name: "Top links" });
  await expect(async () => {
    await page.goto("/dashboard/analytics?range=7d");
    await expect(topLinks.getByRole("row", { name: /counted-code/ })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  const referrers = page.getByRole("region", { name: "Referrers" });
  await expect(referrers.getByRole("columnheader", { name: "Unique visitors" })).toHaveCount(0);
  await expect(referrers).toContainText("One visitor may arrive from several sites");
  await expect(
    page.getByRole("region", { name: "Devices" }).getByRole("columnheader", { name: "Unique visitors" }),
  ).toBeVisible();
  await capturePage(page, testInfo, "analytics-top-links");

  await topLinks.getByRole("link", { name: /counted-code/ }).click();
  await expect(page).toHaveURL(/link_id=lnk_/);
  await expect(page).toHaveURL(/range=7d/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/^Analytics: .*\/counted-code$/);
  await expect(page.getByText("Leads to https://example.com/counted")).toBeVisible();
  await expect(page.getByTestId("analytics-totals")).toContainText("3 scans");
});

const PHONE_AGENT =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

test("a breakdown's row filters the analytics page; uniques show only where they are distinct visitors", async ({}, testInfo) => {
  await createLink("https://example.com/narrowed", "narrowed-code");
  const shortUrl = `${baseUrl()}/narrowed-code`;
  // Two scans from this desktop browser, one from a phone that came from a news site.
  for (let visit = 0; visit < 2; visit++) await page.request.get(shortUrl, { maxRedirects: 0 });
  await page.request.get(shortUrl, {
    maxRedirects: 0,
    headers: { "User-Agent": PHONE_AGENT, Referer: "https://news.example/story" },
  });
  await expect(async () => {
    await page.goto("/dashboard/analytics?range=7d");
    await page
      .getByRole("region", { name: "Top links" })
      .getByRole("link", { name: /narrowed-code/ })
      .click({ timeout: 1000 });
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(/narrowed-code$/, { timeout: 5000 });
    await expect(page.getByTestId("analytics-totals")).toContainText("3 scans", { timeout: 1000 });
  }).toPass({ timeout: 30_000 });

  const devices = page.getByRole("region", { name: "Devices" });
  const referrers = page.getByRole("region", { name: "Referrers" });
  await devices.getByRole("link", { name: /^Phone/ }).click();
  await expect(page).toHaveURL(/link_id=lnk_.*device=mobile/);
  await expect(page.getByTestId("analytics-filter")).toContainText("Only scans whose device is Phone");
  await expect(page.getByTestId("analytics-totals")).toHaveText("1 scan, 1 unique visitor");
  await expect(devices.getByRole("link")).toHaveCount(0);
  await expect(devices.getByRole("columnheader", { name: "Unique visitors" })).toBeVisible();
  await expect(referrers.getByRole("row")).toHaveText([/Referrer/, /news\.example\s*1/]);
  await expect(page.getByRole("link", { name: "Download CSV" })).toHaveAttribute("href", /device=mobile/);
  await capturePage(page, testInfo, "analytics-filtered-link");

  // Another row replaces the filter; a visitor may come through several sites, so no uniques within it.
  await referrers.getByRole("link", { name: /news\.example/ }).click();
  await expect(page).toHaveURL(/referrer=news\.example/);
  await expect(page).not.toHaveURL(/device=/);
  await expect(page.getByTestId("analytics-totals")).toHaveText("1 scan");
  const countries = page.getByRole("region", { name: "Countries" });
  await expect(countries.getByRole("columnheader", { name: "Unique visitors" })).toHaveCount(0);
  await expect(countries).toContainText("One visitor may arrive through several sites");
  await page.getByRole("link", { name: "Show all scans" }).click();
  await expect(page.getByTestId("analytics-filter")).toHaveCount(0);
  await expect(page.getByTestId("analytics-totals")).toContainText("3 scans, 2 unique visitors");

  // Across the workspace, a filter keeps the top links (each link's own visitors) and its own row's uniques;
  // the other breakdowns would count a visitor of two links twice, so they show scans only.
  await page.getByRole("link", { name: "the whole workspace" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Analytics");
  await page
    .getByRole("region", { name: "Devices" })
    .getByRole("link", { name: /^Computer/ })
    .click();
  await expect(page).toHaveURL(/\?range=7d&device=desktop$/);
  await expect(
    page.getByRole("region", { name: "Devices" }).getByRole("columnheader", { name: "Unique visitors" }),
  ).toBeVisible();
  await expect(countries.getByRole("columnheader", { name: "Unique visitors" })).toHaveCount(0);
  await expect(countries).toContainText("counted one link at a time");
  const filteredRow = page.getByRole("region", { name: "Top links" }).getByRole("row", { name: /narrowed-code/ });
  await expect(filteredRow.getByRole("cell")).toHaveText([/narrowed-code/, "2", "1"]);
  await capturePage(page, testInfo, "analytics-filtered-workspace");

  // A link's own page leads to the analytics page narrowed to the row's value.
  await openLink("narrowed-code");
  await page
    .getByRole("region", { name: "Analytics: the last 30 days" })
    .getByRole("region", { name: "Referrers" })
    .getByRole("link", { name: /news\.example/ })
    .click();
  await expect(page).toHaveURL(/\/dashboard\/analytics\?link_id=lnk_[^&]+&range=30d&referrer=news\.example$/);
  await expect(page.getByTestId("analytics-totals")).toHaveText("1 scan");
});

test("on a phone forms fold behind a button, the page's list shows first, and nothing is wider than the screen", async ({}, testInfo) => {
  await createLink("https://example.com/tucked", "tucked-code");
  await page.setViewportSize({ width: 375, height: 740 });
  const pages = [
    { path: "/dashboard", button: "Create a link", field: "Destination" },
    { path: "/dashboard/domains", button: "Add a domain", field: "Hostname" },
    { path: "/dashboard/members", button: "Invite someone", field: "E-mail address" },
    { path: "/dashboard/settings/webhooks", button: "Add an endpoint", field: "Address that receives the events" },
  ];
  try {
    for (const { path, button, field } of pages) {
      await page.goto(path);
      const toggle = page.getByRole("button", { name: button });
      await expect(toggle).toHaveAttribute("aria-expanded", "false");
      await expect(page.getByLabel(field, { exact: true })).toBeHidden();
      expect(await formShareOfFirstScreen(page), `${path}: share of the first screen that is form`).toBeLessThan(0.5);
      await toggle.click();
      await expect(page.getByRole("button", { name: "Hide the form" })).toHaveAttribute("aria-expanded", "true");
      await expect(page.getByLabel(field, { exact: true })).toBeVisible();
    }
    // The list is what a phone shows first: its first card starts on the first screen.
    await page.goto("/dashboard");
    const cards = page.getByRole("list", { name: /^Links, newest first/ }).getByRole("listitem");
    expect((await cards.first().boundingBox())!.y, "top of the first link card at 375 × 740").toBeLessThan(500);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    // Importing and exporting wait under the list; what to do with a selection appears once something is selected.
    await expect(page.getByRole("link", { name: "Export all (CSV)" })).toBeVisible();
    const actions = page.getByTestId("selection-actions");
    await expect(actions).toBeHidden();
    await cards.first().getByRole("checkbox").check();
    await expect(actions).toContainText("1 selected");
    const bar = (await actions.boundingBox())!;
    expect(bar.y + bar.height, "the selection's actions stay on the screen").toBeLessThanOrEqual(740);
    expect(bar.x + bar.width).toBeLessThanOrEqual(375);
    await expect(actions.getByRole("button", { name: "Archive selected" })).toBeEnabled();
    await cards.first().getByRole("checkbox").uncheck();
    await expect(actions).toBeHidden();

    // No dashboard page is wider than the phone.
    for (const path of [
      "/dashboard?view=archived",
      "/dashboard/imports",
      "/dashboard/analytics",
      "/dashboard/billing",
      "/dashboard/settings",
      "/dashboard/settings/webhooks",
      "/dashboard/domains",
      "/dashboard/members",
    ]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${path} at 375 px`).toBeLessThanOrEqual(375);
    }
    await page.goto("/dashboard");
    await cards
      .filter({ hasText: "tucked-code" })
      .getByRole("link", { name: /\/tucked-code$/ })
      .click();
    await expect(page.getByRole("heading", { name: "QR code" })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth), "a link's page at 375 px").toBeLessThanOrEqual(375);

    // The unfolded form creates a link as before.
    await page.goto("/dashboard");
    await page.getByRole("button", { name: "Create a link" }).click();
    await page.getByLabel("Destination", { exact: true }).fill("example.com/phone");
    await page.getByLabel("Custom slug (optional)").fill("phone-code");
    await page.getByRole("button", { name: "Create link" }).click();
    await expect(page.getByTestId("created-short-url")).toHaveText(`${baseUrl()}/phone-code`);
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
  await page.goto("/dashboard");
  await expect(page.getByRole("button", { name: "Create a link" })).toBeHidden();
  await expect(page.getByLabel("Destination", { exact: true })).toBeVisible();
  await capturePage(page, testInfo, "links-form-folded");
});

test("a new workspace's dashboard says what to do first; the landing page and local billing pages show the plans", async ({}, testInfo) => {
  const newcomer = await browser.newContext({ baseURL: baseUrl(), userAgent: USER_AGENT });
  const fresh = await newcomer.newPage();
  const errors = watchConsole(fresh);
  await fresh.goto("/");
  await expect(fresh.getByTestId("plan-starter")).toContainText("19.00 AUD a month");
  await expect(fresh.getByTestId("plan-starter")).toContainText("100 new links each billing cycle");
  await expect(fresh.getByTestId("plan-unlimited")).toContainText("49.00 AUD a month or 490.00 AUD a year");
  await capturePage(fresh, testInfo, "landing-plans");

  await signInByMagicLink(fresh, "newcomer@permalink.test");
  const steps = fresh.getByRole("region", { name: "First steps" });
  await expect(steps.getByRole("listitem")).toHaveText([/Choose a plan/, /Create your first link/, /Download its QR code/]);
  await expect(steps.getByRole("link", { name: "choose a plan in Billing" })).toHaveAttribute("href", "/dashboard/billing");
  await capturePage(fresh, testInfo, "links-first-steps");

  await fresh.goto("/dashboard/billing");
  await fresh.getByRole("button", { name: "Choose Starter monthly" }).click();
  await expect(fresh.getByRole("heading", { name: "Subscribe to Starter" })).toBeVisible();
  await capturePage(fresh, testInfo, "local-checkout");
  await fresh.getByRole("button", { name: "Complete purchase" }).click();
  await expect(fresh.getByText("Purchase complete")).toBeVisible();
  await fresh.goto("/dashboard");
  await expect(fresh.getByRole("region", { name: "First steps" })).toContainText("Done: this workspace has a subscription.");
  await fresh.goto("/dashboard/billing");
  await fresh
    .getByRole("button", { name: /portal/i })
    .first()
    .click();
  await expect(fresh.getByTestId("billing-cycle")).toHaveText(
    /runs from \d{1,2} [A-Z][a-z]+ \d{4} to \d{1,2} [A-Z][a-z]+ \d{4}\./,
  );
  await capturePage(fresh, testInfo, "local-portal");
  expect(errors).toEqual([]);
  await newcomer.close();
});
