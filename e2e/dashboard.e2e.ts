import { type Browser, type BrowserContext, chromium, type Page } from "@playwright/test";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { decodeQr } from "../tests/support/images";
import { CHROMIUM } from "./support/chromium";
import { expect, test } from "./support/fixtures";
import {
  baseUrl,
  capturePage,
  linkInMail,
  requestWithHost,
  setDnsRecords,
  signInByMagicLink,
  subscribeToUnlimited,
  watchConsole,
} from "./support/helpers";

/** The flows build on each other: one person signs in once, subscribes, creates, then lapses. */
test.describe.configure({ mode: "serial" });

const OWNER = "owner@permalink.test";
const TEAMMATE = "teammate@permalink.test";
/** Headless Chromium says HeadlessChrome, which analytics rightly counts as a bot: the people here browse as desktop Chrome. */
const USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const DESTINATION = "http://menu.example.com/spring";

let destinations: Server;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let consoleErrors: string[];
let shortUrl: string;

/**
 * The destinations' web server: the browser resolves *.example.com to it (Chromium's host resolver
 * rules), so following a short link ends on a real page that says where the browser arrived.
 */
async function startDestinations(): Promise<number> {
  destinations = createServer((request, response) => {
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    response.end(
      `<!doctype html><html lang="en"><title>Destination</title><h1>Arrived at ${request.headers.host}${request.url}</h1></html>`,
    );
  });
  await new Promise<void>((resolve) => destinations.listen(0, "127.0.0.1", resolve));
  return (destinations.address() as AddressInfo).port;
}

test.beforeAll(async () => {
  const port = await startDestinations();
  browser = await chromium.launch({
    ...CHROMIUM,
    args: [...CHROMIUM.args, `--host-resolver-rules=MAP *.example.com 127.0.0.1:${port}`],
  });
  context = await browser.newContext({
    baseURL: baseUrl(),
    userAgent: USER_AGENT,
    permissions: ["clipboard-read", "clipboard-write"],
  });
  page = await context.newPage();
  consoleErrors = watchConsole(page);
});

test.afterAll(async () => {
  await browser.close();
  await new Promise((resolve) => destinations.close(resolve));
});
test.afterEach(() => expect(consoleErrors).toEqual([]));

test("the landing page says what the product does and links to sign-in and the docs", async ({}, testInfo) => {
  // Five pages, each checked by axe and screenshotted at two widths; the API reference alone (every
  // operation, a page of some 11 MB as a full-page PNG) took two minutes on a loaded machine.
  test.setTimeout(6 * 60_000);
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Permanent short links and QR codes");
  await expect(page.getByRole("link", { name: "Machine payments" })).toHaveAttribute("href", "/docs/payments");
  await expect(page.getByRole("link", { name: "API reference" }).first()).toHaveAttribute("href", "/docs");
  await capturePage(page, testInfo, "landing");
  for (const docs of ["docs", "docs/payments", "docs/agents"]) {
    await page.goto(`/${docs}`);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await capturePage(page, testInfo, docs.replace("/", "-"));
  }
  await page.goto("/signin");
  await expect(page.getByText("Development only")).toHaveCount(0);
  await capturePage(page, testInfo, "sign-in");
});

test("signs in with the magic link the SMTP server received", async ({}, testInfo) => {
  await signInByMagicLink(page, OWNER);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("heading", { name: "Links" })).toBeVisible();
  await expect(page.getByText("This workspace has no subscription yet.")).toBeVisible();
  await capturePage(page, testInfo, "links-empty");
});

test("subscribes through the local billing provider", async ({}, testInfo) => {
  await page.goto("/dashboard/billing");
  await expect(page.getByText("49.00 AUD a month")).toBeVisible();
  await capturePage(page, testInfo, "billing-none");
  await page.getByRole("button", { name: "Choose Unlimited monthly" }).click();
  await expect(page.getByRole("heading", { name: "Subscribe to Unlimited" })).toBeVisible();
  await page.getByRole("button", { name: "Complete purchase" }).click();
  await expect(page.getByText("Purchase complete")).toBeVisible();
  await page.goto("/dashboard/billing");
  await expect(page.getByTestId("billing-status")).toHaveText(/^active/);
  await expect(page.getByTestId("billing-plan")).toHaveText("Unlimited, billed by the month");
  await capturePage(page, testInfo, "billing-active");
});

test("creates a link, shows the API's own error sentence inline, and the short URL redirects", async ({}, testInfo) => {
  await page.goto("/dashboard");
  await page.getByLabel("Destination", { exact: true }).fill("http://127.0.0.1/admin");
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.locator("main").getByRole("alert")).toContainText("The destination points at a loopback address");

  await page.getByLabel("Destination", { exact: true }).fill(DESTINATION);
  await page.getByLabel("Custom slug (optional)").fill("spring-menu");
  await page.getByRole("button", { name: "Create link" }).click();
  const created = page.getByTestId("created-short-url");
  await expect(created).toHaveText(`${baseUrl()}/spring-menu`);
  shortUrl = (await created.textContent())!;
  await expect(page.getByRole("row", { name: /spring-menu/ })).toContainText("New: checked live");

  await page.getByLabel("Destination", { exact: true }).fill(DESTINATION);
  await page.getByLabel("Custom slug (optional)").fill("spring-menu");
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.locator("main").getByRole("alert")).toContainText("spring-menu");
  await capturePage(page, testInfo, "links");

  const redirect = await page.request.get(shortUrl, { maxRedirects: 0 });
  expect([301, 302, 307, 308]).toContain(redirect.status());
  expect(redirect.headers().location).toBe(DESTINATION);
  await page.goto(shortUrl);
  await expect(page).toHaveURL(DESTINATION);
  await expect(page.getByRole("heading", { name: "Arrived at menu.example.com/spring" })).toBeVisible();
});

test("designs the QR code with a logo and downloads what the server draws, which scans as the short URL", async ({}, testInfo) => {
  // Two downloads decoded, a refused logo, a removed one, and two widths of axe: more than the suite's minute on a loaded machine.
  test.setTimeout(150_000);
  await page.goto("/dashboard");
  await page.getByRole("link", { name: /\/spring-menu$/ }).click();
  await expect(page.getByRole("heading", { name: "QR code" })).toBeVisible();
  await expect(page.getByTestId("qr-preview")).toBeVisible();
  const logo = await sharp({ create: { width: 96, height: 96, channels: 4, background: "#d62424" } })
    .png()
    .toBuffer();
  await page.getByLabel(/Upload a logo for this link/).setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: logo });
  await expect(page.getByRole("button", { name: "Remove this link's logo" })).toBeVisible();
  await expect(page.getByLabel(/Logo in the centre/)).toBeChecked();
  await expect(page.getByTestId("qr-preview").locator("image")).toHaveCount(1);
  // A logo over the limit is refused in the browser, before any upload, with the limit in the sentence.
  const uploads: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "PUT" && request.url().includes("/logo")) uploads.push(request.url());
  });
  await page
    .getByLabel(/Replace this link's logo/)
    .setInputFiles({ name: "poster.png", mimeType: "image/png", buffer: Buffer.alloc(1536 * 1024, 1) });
  await expect(page.locator("main").getByRole("alert")).toHaveText(
    "poster.png is 1.5 MiB; a logo can be at most 1 MiB. Choose a smaller image or export it at a lower size.",
  );
  expect(uploads).toEqual([]);
  await page.getByLabel("Foreground colour").fill("#1a3d7c");
  await page.getByLabel("Size (pixels)").fill("600");
  await capturePage(page, testInfo, "link-qr");

  for (const format of ["PNG", "SVG"]) {
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: `Download ${format}` }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`spring-menu.*\\.${format.toLowerCase()}$`));
    const image = await readFile((await download.path())!);
    const pixels = await sharp(image).metadata();
    expect(pixels.width).toBe(600);
    expect(await decodeQr(image)).toBe(`${shortUrl}?qr`);
  }

  await page.getByLabel("Background colour").fill("#203040");
  await page.getByRole("button", { name: "Download PNG" }).click();
  await expect(page.locator("main").getByRole("alert")).toContainText("many scanners cannot read an inverted code");
  // The browser logs the refused download (400) it was asked to make; nothing else.
  expect(consoleErrors).toEqual([
    expect.stringMatching(/^Failed to load resource: the server responded with a status of 400 \(Bad Request\) \(.*\/qr\?/),
  ]);
  consoleErrors.length = 0;

  // Removing the logo deletes the image: asked first.
  await page.getByRole("button", { name: "Remove this link's logo" }).click();
  await expect(page.getByRole("group", { name: "Confirm: Remove this link's logo" })).toContainText("The image is deleted");
  await page.getByRole("button", { name: "Yes, remove the logo" }).click();
  await expect(page.getByLabel(/Upload a logo for this link/)).toBeVisible();
  await expect(page.getByTestId("qr-preview").locator("image")).toHaveCount(0);
});

test("repoints a link and archives another, which then shows under Archived and restores from its page", async ({}, testInfo) => {
  await page.goto("/dashboard");
  // Typed as people type it: the dashboard adds https:// (the API itself stays strict).
  await page.getByLabel("Destination", { exact: true }).fill("flyer.example.com/2025");
  await page.getByLabel("Custom slug (optional)").fill("old-flyer");
  await page.getByRole("button", { name: "Create link" }).click();
  // The refusal in the form's words, under the field it is about, with what was typed still in the form.
  const slugField = page.getByLabel("Custom slug (optional)");
  await expect(slugField).toHaveAttribute("aria-invalid", "true");
  // The keyboard lands where the fix goes.
  await expect(slugField).toBeFocused();
  await expect(slugField).toHaveAccessibleDescription(
    /^The custom slug may use letters and digits except 0, O, 1, l and I, plus - and _, with \. or ~ between two of them and \/ between parts\./,
  );
  await expect(page.locator("main").getByRole("alert")).toHaveText(
    "The custom slug may use letters and digits except 0, O, 1, l and I, plus - and _, with . or ~ between two of them and / between parts.",
  );
  await expect(page.locator("main")).not.toContainText("request");
  await expect(page.getByLabel("Destination", { exact: true })).toHaveValue("flyer.example.com/2025");
  await page.getByLabel("Custom slug (optional)").fill("past-event");
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.getByTestId("created-short-url")).toHaveText(`${baseUrl()}/past-event`);
  await page
    .getByRole("row", { name: /past-event/ })
    .getByRole("link", { name: /past-event/ })
    .click();
  await page.getByLabel("New destination").fill("flyer.example.com/2026");
  await page.getByRole("button", { name: "Repoint", exact: true }).click();
  await expect(page.getByText("Repointed to https://flyer.example.com/2026")).toBeVisible();
  await expect(page.getByTestId("link-destination")).toHaveText("https://flyer.example.com/2026");
  await page.getByRole("button", { name: "Archive this link" }).click();
  await expect(page.getByText("Archived: the link keeps resolving")).toBeVisible();
  await page.goto("/dashboard");
  await expect(page.getByRole("row", { name: /past-event/ })).toHaveCount(0);
  await page.getByRole("link", { name: "Archived" }).click();
  await expect(page.getByRole("row", { name: /past-event/ })).toBeVisible();
  await capturePage(page, testInfo, "links-archived");
  const redirect = await page.request.get(`${baseUrl()}/past-event`, { maxRedirects: 0 });
  expect(redirect.headers().location).toBe("https://flyer.example.com/2026");

  // Archiving is undone from the link's own page.
  await page
    .getByRole("row", { name: /past-event/ })
    .getByRole("link", { name: /past-event/ })
    .click();
  await page.getByRole("button", { name: "Restore this link" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Restored: the link is back in the main list." })).toBeVisible();
  await expect(page.getByRole("button", { name: "Archive this link" })).toBeVisible();
  // Its history, newest first, in words: every change made above, each by this person in the dashboard.
  await page.reload();
  const history = page.getByTestId("link-history").getByRole("listitem");
  await expect(history.getByTestId("history-change")).toHaveText([
    "Restored to the main list",
    "Archived (it keeps resolving)",
    "Destination changed from https://flyer.example.com/2025 to https://flyer.example.com/2026",
    "Created, pointing at https://flyer.example.com/2025",
  ]);
  await expect(history.first()).toContainText("in the dashboard");
  await capturePage(page, testInfo, "link-history");
  await page.goto("/dashboard");
  await expect(page.getByRole("row", { name: /past-event/ })).toBeVisible();

  // A link that is not there (or not this workspace's) gets the dashboard's own page, inside its frame, with status 404.
  expect((await page.goto("/dashboard/links/lnk_notalinkofyours"))?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "Nothing here" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Dashboard" })).toBeVisible();
  await capturePage(page, testInfo, "not-found");
  expect((await page.goto("/dashboard/no-such-page"))?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "Nothing here" })).toBeVisible();
  // The browser reports each 404 answer in its console: these two are the ones asked for.
  expect(consoleErrors).toEqual([
    `Failed to load resource: the server responded with a status of 404 (Not Found) (${baseUrl()}/dashboard/links/lnk_notalinkofyours)`,
    `Failed to load resource: the server responded with a status of 404 (Not Found) (${baseUrl()}/dashboard/no-such-page)`,
  ]);
  consoleErrors.length = 0;
});

test("sees the visits in analytics, with a CSV of the same rows", async ({}, testInfo) => {
  await page.goto("/dashboard/analytics?range=7d");
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("analytics-totals")).toContainText(/^[1-9]\d* scans?/, { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByRole("region", { name: "QR code or link" })).toContainText("link");
  await capturePage(page, testInfo, "analytics");
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download CSV" }).click()]);
  const csv = await readFile((await download.path())!, "utf8");
  expect(csv.split("\r\n")[0]).toBe('"key","scans","uniques"');
  const scans = csv
    .split("\r\n")
    .slice(1)
    .filter(Boolean)
    .reduce((sum, line) => sum + Number(line.split(",")[1]), 0);
  expect(scans).toBeGreaterThan(0);
});

test("shows a link's own analytics panel with the visit just made to its short URL", async ({}, testInfo) => {
  await page.goto(shortUrl);
  await expect(page).toHaveURL(DESTINATION);
  await page.goto("/dashboard");
  await page.getByRole("link", { name: /\/spring-menu$/ }).click();
  const panel = page.getByRole("region", { name: "Analytics: the last 30 days" });
  await expect(panel).toBeVisible();
  // Visits are counted in batches: reload until this one is in.
  await expect(async () => {
    await page.reload();
    await expect(panel.getByTestId("analytics-totals")).toContainText(/^[1-9]\d* scans?, [1-9]\d* unique visitors?/, {
      timeout: 1000,
    });
  }).toPass({ timeout: 30_000 });
  await expect(panel.getByRole("region", { name: "Devices" })).toContainText("Computer");
  await expect(panel.getByRole("region", { name: "Countries" }).getByRole("row")).not.toHaveCount(0);
  await expect(panel.getByRole("region", { name: "Referrers" }).getByRole("row")).not.toHaveCount(0);
  await capturePage(page, testInfo, "link-analytics");
  await panel.getByRole("link", { name: "Other ranges, browsers and CSV" }).click();
  await expect(page.getByRole("heading", { level: 1, name: /^Analytics: / })).toBeVisible();
  await expect(page.getByTestId("analytics-totals")).toContainText(/^[1-9]\d* scans?/);
  await capturePage(page, testInfo, "analytics-link");
});

test("adds a custom domain, sees its DNS records and status, and verifies it now once the records exist", async ({}, testInfo) => {
  const hostname = "go.menus.example.com";
  await page.goto("/dashboard");
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Domains" }).click();
  await expect(page.getByRole("heading", { name: "Custom domains", level: 1 })).toBeVisible();
  await expect(page.getByText("No custom domain yet. Add one above")).toBeVisible();

  // The API's own sentence, inline, with what was typed kept for correcting.
  await page.getByLabel("Hostname").fill("printer.local");
  await page.getByRole("button", { name: "Add domain" }).click();
  await expect(page.locator("main").getByRole("alert")).toContainText("printer.local is");
  await expect(page.getByLabel("Hostname")).toHaveValue("printer.local");

  await page.getByLabel("Hostname").fill(hostname);
  await page.getByRole("button", { name: "Add domain" }).click();
  await expect(page.locator("main").getByRole("status")).toHaveText(
    `Added ${hostname}: create the records listed under it at your DNS provider.`,
  );
  const card = page.getByRole("region", { name: hostname });
  await expect(card).toContainText("Not verified");
  await expect(card).toContainText("DNS: pending");
  await expect(card.getByTestId("domain-next")).toContainText("Add the 2 records below at your DNS provider");
  const records = card.getByRole("table", { name: `DNS records for ${hostname}` });
  await expect(records.getByRole("row", { name: /TXT/ })).toContainText(`_permalink.${hostname}`);
  await expect(records.getByRole("row", { name: /CNAME/ })).toContainText(hostname);
  const txtValue = (await records.getByRole("row", { name: /TXT/ }).locator("code").nth(1).textContent())!;
  expect(txtValue).toMatch(/^permalink-verify=\w+$/);
  const copyTxtValue = records.getByRole("button", { name: /the value of the TXT record/ });
  await expect(copyTxtValue).toHaveAccessibleName(`Copy the value of the TXT record ${txtValue}`);
  await copyTxtValue.click();
  await expect(copyTxtValue).toHaveAccessibleName(`Copied the value of the TXT record ${txtValue}`);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(txtValue);
  await expect(card.getByTestId("domain-validation-errors")).toContainText(`The TXT record _permalink.${hostname} is missing`);
  await capturePage(page, testInfo, "domains");

  await card.getByRole("button", { name: "Verify now" }).click();
  await expect(card.getByRole("status")).toHaveText(`Checked ${hostname} just now: not verified yet, status pending.`);

  // The customer creates the records the page listed, and asks for a check.
  await setDnsRecords(`_permalink.${hostname}`, { txt: [txtValue] });
  await setDnsRecords(hostname, { cname: new URL(baseUrl()).hostname });
  await card.getByRole("button", { name: "Verify now" }).click();
  await expect(card.getByRole("status")).toHaveText(`Checked ${hostname} just now: verified, status active.`);
  await expect(card).toContainText("Verified");
  await expect(card).toContainText("DNS: active");
  await expect(card.getByTestId("domain-next")).toContainText(`Ready: create links on this domain`);
  await expect(card.getByTestId("domain-validation-errors")).toHaveCount(0);
  // Ownership is proven once: the TXT record is no longer asked for.
  await expect(records.getByRole("row", { name: /TXT/ })).toHaveCount(0);
  await capturePage(page, testInfo, "domains-verified");
});

test("creates a link on the verified domain, which then cannot be removed; another domain is checked and removed", async () => {
  const hostname = "go.menus.example.com";
  await page.goto("/dashboard");
  await page.getByLabel("Destination", { exact: true }).fill("http://menu.example.com/autumn");
  await page.getByLabel("Custom slug (optional)").fill("autumn");
  await page.getByRole("region", { name: "Create a link" }).getByLabel("Domain").selectOption({ label: hostname });
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.getByTestId("created-short-url")).toHaveText(`https://${hostname}/autumn`);
  // The app answers the domain's visitors: a visit with its Host header redirects to the destination.
  const visit = await requestWithHost(hostname, "/autumn");
  expect([301, 302, 307, 308]).toContain(visit.status);
  expect(visit.location).toBe("http://menu.example.com/autumn");
  await page.goto(`/dashboard?domain=${hostname}`);
  await expect(page.getByRole("row", { name: /autumn/ })).toBeVisible();
  await expect(page.getByRole("row", { name: /spring-menu/ })).toHaveCount(0);

  await page.goto("/dashboard/domains");
  const card = page.getByRole("region", { name: hostname });
  await card.getByRole("button", { name: "Remove" }).click();
  await card.getByRole("button", { name: `Yes, remove ${hostname}` }).click();
  await expect(card.getByRole("alert")).toContainText(
    `${hostname} has links, which must keep resolving, so it cannot be deleted`,
  );

  // A second domain, never verified, goes at once.
  await page.getByLabel("Hostname").fill("qr.menus.example.com");
  await page.getByRole("button", { name: "Add domain" }).click();
  const second = page.getByRole("region", { name: "qr.menus.example.com" });
  await expect(second).toContainText("DNS: pending");
  await second.getByRole("button", { name: "Verify now" }).click();
  await expect(second.getByRole("status")).toHaveText("Checked qr.menus.example.com just now: not verified yet, status pending.");
  await removeDomain("qr.menus.example.com");
  await expect(page.getByRole("region", { name: hostname })).toBeVisible();
});

/** Removes a domain from the Domains page through its confirmation (cancelled once: the keyboard's focus goes back and forth). */
async function removeDomain(hostname: string): Promise<void> {
  const card = page.getByRole("region", { name: hostname });
  await card.getByRole("button", { name: "Remove" }).click();
  await expect(card.getByRole("button", { name: `Yes, remove ${hostname}` })).toBeFocused();
  await card.getByRole("button", { name: "Cancel" }).click();
  await expect(card.getByRole("button", { name: "Remove" })).toBeFocused();
  await card.getByRole("button", { name: "Remove" }).click();
  await card.getByRole("button", { name: `Yes, remove ${hostname}` }).click();
  await expect(page.getByRole("status").filter({ hasText: "was removed" })).toHaveText(
    `${hostname} was removed from this workspace; its DNS records can go too.`,
  );
  await expect(page.getByRole("region", { name: hostname })).toHaveCount(0);
}

test("searches and filters the links table", async () => {
  await page.goto("/dashboard?q=spring");
  await expect(page.getByRole("row", { name: /spring-menu/ })).toBeVisible();
  await page.goto("/dashboard?q=nothing-like-this");
  await expect(page.getByText("No link matches this search.")).toBeVisible();
  await page.goto("/dashboard?status=active");
  await expect(page.getByText("No link matches this search.")).toBeVisible();
  // Through the form: every status the filter offers, and a new link is still in quarantine.
  await expect(page.getByLabel("Status").locator("option")).toHaveText(["Any status", "Active", "New: checked live", "Abuse"]);
  await page.getByLabel("Status").selectOption("New: checked live");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/status=quarantine/);
  await expect(page.getByRole("row", { name: /spring-menu/ })).toBeVisible();
});

test("claims the API key once, with a warning, and revokes it", async ({}, testInfo) => {
  await page.goto("/dashboard/settings");
  await page.getByRole("button", { name: "Create an API key" }).click();
  await expect(page.getByText("Copy this key now: it is shown only once.")).toBeVisible();
  const key = (await page.getByTestId("api-key-value").textContent())!;
  expect(key).toMatch(/^plk_/);
  const listed = await page.request.get("/api/links", { headers: { Authorization: `Bearer ${key}` } });
  expect(listed.status()).toBe(200);
  expect(((await listed.json()) as { links: { slug: string }[] }).links.map((link) => link.slug)).toContain("spring-menu");
  await capturePage(page, testInfo, "api-key");
  await page.reload();
  await expect(page.getByTestId("api-key-value")).toHaveCount(0);
  await expect(page.getByTestId("api-key-summary")).toContainText("last used");

  // Rotating replaces the key at once: the new one is shown once, the old one is refused from then on.
  await page.getByRole("button", { name: "Rotate the API key" }).click();
  await expect(page.getByRole("button", { name: "Yes, replace the key" })).toBeFocused();
  await page.getByRole("button", { name: "Yes, replace the key" }).click();
  await expect(page.getByText("Copy this key now: it is shown only once.")).toBeVisible();
  const rotated = (await page.getByTestId("api-key-value").textContent())!;
  expect(rotated).toMatch(/^plk_/);
  expect(rotated).not.toBe(key);
  expect((await page.request.get("/api/links", { headers: { Authorization: `Bearer ${key}` } })).status()).toBe(401);
  expect((await page.request.get("/api/links", { headers: { Authorization: `Bearer ${rotated}` } })).status()).toBe(200);
  await capturePage(page, testInfo, "api-key-rotated");
  await page.reload();
  await expect(page.getByTestId("api-key-value")).toHaveCount(0);
  // Revoking breaks every integration at once: asked first, and Cancel keeps the key.
  await page.getByRole("button", { name: "Revoke the API key" }).click();
  await expect(page.getByRole("button", { name: "Yes, revoke the key" })).toBeFocused();
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("button", { name: "Revoke the API key" })).toBeFocused();
  expect((await page.request.get("/api/links", { headers: { Authorization: `Bearer ${rotated}` } })).status()).toBe(200);
  await page.getByRole("button", { name: "Revoke the API key" }).click();
  await page.getByRole("button", { name: "Yes, revoke the key" }).click();
  await expect(page.getByRole("status").filter({ hasText: "The key was revoked" })).toBeVisible();
  expect((await page.request.get("/api/links", { headers: { Authorization: `Bearer ${rotated}` } })).status()).toBe(401);
});

test("creates a team workspace, renames it, and invites a member who accepts as the invited address", async ({}, testInfo) => {
  // Six pages checked and screenshotted at two widths, two people signing in: more than the suite's minute.
  test.setTimeout(3 * 60_000);
  await page.goto("/dashboard/settings");
  await page.getByLabel("New workspace's name").fill("Acme Menus");
  await page.getByRole("button", { name: "Create workspace" }).click();
  // The switcher names the workspace the page now acts on, at once (not after a reload).
  const current = page.getByRole("combobox", { name: "Workspace" }).locator("option:checked");
  await expect(current).toHaveText("Acme Menus (owner)");
  await page.getByLabel("Workspace name").fill("Acme Menus & Labels");
  await page.getByRole("button", { name: "Rename" }).click();
  await expect(page.getByText("Renamed to Acme Menus & Labels.")).toBeVisible();
  await expect(current).toHaveText("Acme Menus & Labels (owner)");
  await capturePage(page, testInfo, "settings-team");

  // Inviting needs the team workspace's own subscription: without one the page says so, with Billing a link away, and offers no form.
  await page.goto("/dashboard/members");
  await expect(page.getByTestId("invite-needs-subscription")).toContainText(
    "Inviting people needs this workspace's own subscription",
  );
  await expect(page.getByLabel("E-mail address")).toHaveCount(0);
  await capturePage(page, testInfo, "members-without-subscription");
  await page.getByTestId("invite-needs-subscription").getByRole("link", { name: "Billing" }).click();
  await expect(page).toHaveURL(/\/dashboard\/billing$/);
  await subscribeToUnlimited(page);

  // A refused invitation keeps what was typed.
  await page.goto("/dashboard/members");
  await expect(page).toHaveTitle("Members — Acme Menus & Labels");
  await page.getByLabel("E-mail address").fill(OWNER);
  await page.getByLabel("Role", { exact: true }).selectOption("admin");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.locator("main").getByRole("alert")).toBeVisible();
  await expect(page.getByLabel("E-mail address")).toHaveValue(OWNER);
  await expect(page.getByLabel("Role", { exact: true })).toHaveValue("admin");

  await page.goto("/dashboard/members");
  const since = Date.now();
  await page.getByLabel("E-mail address").fill(TEAMMATE);
  await page.getByLabel("Role", { exact: true }).selectOption("member");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.locator("main").getByRole("status")).toContainText(`Invitation sent to ${TEAMMATE}`);
  const invited = page.getByRole("list", { name: "Pending invitations" }).getByRole("listitem").filter({ hasText: TEAMMATE });
  await expect(invited).toContainText("member");
  await capturePage(page, testInfo, "members");
  const invitation = await linkInMail(TEAMMATE, since, /(https?:\/\/\S+\/invite\/\S+)/);

  // Revoking an invitation is asked first: Cancel keeps it, the confirmation revokes it.
  const STRAY = "printer@permalink.test";
  await page.getByLabel("E-mail address").fill(STRAY);
  await page.getByRole("button", { name: "Send invitation" }).click();
  const strayRow = page.getByRole("listitem").filter({ hasText: STRAY });
  await strayRow.getByRole("button", { name: `Revoke the invitation of ${STRAY}` }).click();
  await expect(strayRow).toContainText("The link they were sent stops working");
  await strayRow.getByRole("button", { name: "Cancel" }).click();
  await strayRow.getByRole("button", { name: `Revoke the invitation of ${STRAY}` }).click();
  await strayRow.getByRole("button", { name: "Yes, revoke the invitation" }).click();
  await expect(page.getByRole("listitem").filter({ hasText: STRAY })).toHaveCount(0);

  const teammate = await browser.newContext({ baseURL: baseUrl(), userAgent: USER_AGENT });
  const theirPage = await teammate.newPage();
  const theirErrors = watchConsole(theirPage);
  // The invitation says who invites whom to what before sign-in, and again after it.
  const offer = `${OWNER} invited you to join the workspace "Acme Menus & Labels" on Permalink as a member.`;
  await theirPage.goto(invitation);
  await expect(theirPage.getByTestId("invitation-offer")).toHaveText(offer);
  await expect(theirPage.getByText(`Sign in with ${TEAMMATE} to accept.`)).toBeVisible();
  await theirPage.getByRole("link", { name: "Sign in to accept" }).click();
  await expect(theirPage).toHaveURL(/\/signin\?callbackUrl=/);
  await signInByMagicLink(theirPage, TEAMMATE, { alreadyOnSignIn: true });
  await expect(theirPage.getByRole("heading", { name: "Join a workspace" })).toBeVisible();
  await expect(theirPage.getByTestId("invitation-offer")).toHaveText(offer);
  await capturePage(theirPage, testInfo, "invitation");
  await theirPage.getByRole("button", { name: "Accept the invitation" }).click();
  await expect(theirPage).toHaveURL(/\/dashboard$/);
  await expect(theirPage.getByRole("combobox", { name: "Workspace" })).toContainText("Acme Menus & Labels (member)");
  await theirPage.goto("/dashboard/domains");
  await expect(theirPage.getByText("No custom domain yet; an owner or admin can add one.")).toBeVisible();
  await expect(theirPage.getByRole("button", { name: "Add domain" })).toHaveCount(0);
  // At a phone's width each person is a card: the address whole on its line, the role picker in reach.
  await page.goto("/dashboard/members");
  await page.setViewportSize({ width: 375, height: 740 });
  const card = page.getByRole("list", { name: "People" }).getByRole("listitem").filter({ hasText: TEAMMATE });
  const address = card.getByText(TEAMMATE, { exact: true }).first();
  const lineHeight = await address.evaluate((element) => parseFloat(getComputedStyle(element).lineHeight));
  expect((await address.boundingBox())!.height, "the address takes one line").toBeLessThan(lineHeight * 1.5);
  await card.getByLabel(`Role of ${TEAMMATE}`).selectOption("admin");
  await card.getByRole("button", { name: "Change role" }).click();
  await expect(card.getByRole("status")).toContainText(`${TEAMMATE} is now admin`);
  await capturePage(page, testInfo, "members-cards");
  await theirPage.goto("/dashboard/members");
  await theirPage.getByRole("button", { name: "Leave this workspace" }).click();
  await expect(theirPage.getByRole("form", { name: "Confirm: Leave this workspace" })).toContainText("You lose access");
  await theirPage.getByRole("button", { name: "Yes, leave this workspace" }).click();
  await expect(theirPage).toHaveURL(/\/dashboard$/);
  await expect(theirPage.getByRole("combobox", { name: "Workspace" })).not.toContainText("Acme Menus & Labels");
  expect(theirErrors).toEqual([]);
  await teammate.close();

  await page.reload();
  await expect(page.getByRole("listitem").filter({ hasText: TEAMMATE })).toHaveCount(0);
  await expect(page.getByText("No invitation is waiting.")).toBeVisible();
  // Back to the personal workspace for the flows that follow.
  // Choosing switches at once, no button, and stays on the same tab.
  await page.getByRole("combobox", { name: "Workspace" }).selectOption({ label: `${OWNER}'s workspace (personal)` });
  await expect(page).toHaveURL(/\/dashboard\/members$/);
  await expect(page.getByRole("combobox", { name: "Workspace" }).locator("option:checked")).toHaveText(
    `${OWNER}'s workspace (personal)`,
  );
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Links" }).click();
  await expect(page.getByRole("row", { name: /spring-menu/ })).toBeVisible();
});

test("cancelling shows the read-only banner while the link keeps resolving", async ({}, testInfo) => {
  await page.goto("/dashboard/billing");
  await page.getByRole("button", { name: "Open the billing portal" }).click();
  // Cancelling asks first; "Keep the subscription" keeps it, the confirmation cancels and leads back to Billing.
  await page.getByRole("link", { name: "Cancel subscription" }).click();
  await page.getByRole("link", { name: "Keep the subscription" }).click();
  await page.getByRole("link", { name: "Cancel subscription" }).click();
  await expect(page.getByRole("form", { name: "Confirm: cancel the subscription" })).toContainText(
    "every existing link keeps resolving",
  );
  await page.getByRole("button", { name: "Yes, cancel the subscription" }).click();
  await expect(page.getByRole("status")).toContainText("The subscription is cancelled.");
  await page.getByRole("link", { name: "Return to Billing" }).click();
  await expect(page).toHaveURL(/\/dashboard\/billing$/);
  await page.goto("/dashboard");
  await expect(page.getByText("The subscription is canceled: the workspace is read-only.")).toBeVisible();
  await expect(page.getByText("Creating links needs an active subscription")).toBeVisible();
  await expect(page.getByRole("row", { name: /spring-menu/ })).toBeVisible();
  await capturePage(page, testInfo, "links-read-only");
  const redirect = await page.request.get(shortUrl, { maxRedirects: 0 });
  expect(redirect.headers().location).toBe(DESTINATION);

  // Read-only, but nothing is taken away: the link's artwork downloads and its analytics show.
  await page.getByRole("link", { name: /\/spring-menu$/ }).click();
  await expect(page.getByText("Repointing needs an active subscription")).toBeVisible();
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download PNG" }).click(),
  ]);
  expect(await decodeQr(await readFile((await download.path())!))).toBe(`${shortUrl}?qr`);
  await expect(page.getByRole("region", { name: "Analytics: the last 30 days" }).getByTestId("analytics-totals")).toContainText(
    /^[1-9]\d* scans?/,
  );

  await page.goto("/dashboard/domains");
  await page.getByLabel("Hostname").fill("go.menus.example.com");
  await page.getByRole("button", { name: "Add domain" }).click();
  await expect(page.locator("main").getByRole("alert")).toContainText("Custom domains need an active subscription.");
  await expect(page.locator("main").getByRole("alert")).toContainText("Existing links keep resolving.");
});

test("signs out everywhere: a copy of the session cookie no longer opens the dashboard", async () => {
  const copied = (await context.cookies()).filter((cookie) => cookie.name.includes("next-auth.session-token"));
  expect(copied.length).toBeGreaterThan(0);
  await page.goto("/dashboard/settings");
  await page.getByRole("button", { name: "Sign out everywhere" }).click();
  await expect(page).toHaveURL(/\/signin/);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();

  const elsewhere = await browser.newContext({ baseURL: baseUrl(), userAgent: USER_AGENT });
  await elsewhere.addCookies(copied);
  const theirPage = await elsewhere.newPage();
  await theirPage.goto("/dashboard");
  await expect(theirPage).toHaveURL(/\/signin\?callbackUrl=/);
  await elsewhere.close();
});
