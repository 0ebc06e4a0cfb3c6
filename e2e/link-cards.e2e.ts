import { type Browser, type Page } from "@playwright/test";
import sharp from "sharp";
import { expect, test } from "./support/fixtures";
import { baseUrl, capturePage, subscribedSession } from "./support/helpers";

/** The link page's Password, Scan limit and Preview cards, each through its own form. */
test.describe.configure({ mode: "serial", timeout: 180_000 });

const PERSON = "cards@permalink.test";

let browser: Browser;
let page: Page;
let consoleErrors: string[];

test.beforeAll(async () => {
  ({ browser, page, consoleErrors } = await subscribedSession(PERSON));
  await page.goto("/dashboard");
  await page.getByLabel("Destination", { exact: true }).fill("https://example.com/cards-menu");
  await page.getByLabel("Custom slug (optional)").fill("cards-menu");
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.getByTestId("created-short-url")).toHaveText(`${baseUrl()}/cards-menu`);
  await page
    .getByRole("row", { name: /\/cards-menu\b/ })
    .getByRole("link", { name: /\/cards-menu$/ })
    .click();
  await expect(page.getByRole("heading", { name: "Preview" })).toBeVisible();
});

test.afterAll(() => browser.close());
test.afterEach(() => expect(consoleErrors).toEqual([]));

test("sets, changes and removes a link's password", async () => {
  const card = page.getByRole("region", { name: "Password" });
  await card.getByLabel("Password", { exact: true }).fill("staff only");
  await card.getByRole("button", { name: "Add password" }).click();
  await expect(card.getByRole("status")).toHaveText("Saved: visitors must enter this password before they go on.");
  await expect(card.getByLabel("New password")).toBeVisible();
  await card.getByRole("button", { name: "Remove password" }).click();
  await expect(card.getByRole("status")).toHaveText("The password is removed: visitors go straight to the destination.");
});

test("sets a scan limit and removes it", async () => {
  const card = page.getByRole("region", { name: "Scan limit" });
  await card.getByLabel("After this many scans").fill("1,000");
  await card.getByLabel("Then send visitors to").fill("https://example.com/sold-out");
  await card.getByRole("button", { name: "Set limit" }).click();
  await expect(card.getByRole("status")).toHaveText("Saved: after 1000 more scans, visitors go to https://example.com/sold-out.");
  await expect(card).toContainText("0 of 1000 scans so far");
  await card.getByRole("button", { name: "Remove limit" }).click();
  await expect(card.getByRole("status")).toHaveText("The scan limit is removed: visitors keep going to the destination.");
});

test("sets a preview's words and image, and removes it", async ({}, testInfo) => {
  const card = page.getByRole("region", { name: "Preview" });
  await card.getByLabel("Title").fill("Spring menu, twelve new dishes");
  await card.getByLabel("Description").fill("From Thursday in every shop.");
  await card.getByRole("button", { name: "Save preview" }).click();
  await expect(card.getByRole("status")).toHaveText(
    "Saved: apps like Slack, WhatsApp and iMessage show this preview for the link.",
  );
  await expect(card.getByLabel("Title")).toHaveValue("Spring menu, twelve new dishes");
  const png = await sharp({ create: { width: 1200, height: 630, channels: 3, background: "#2040d0" } })
    .png()
    .toBuffer();
  await card.getByLabel(/Upload an image/).setInputFiles({ name: "spring.png", mimeType: "image/png", buffer: png });
  await expect(card.getByRole("img", { name: "The preview's image" })).toBeVisible();
  await expect(card.getByLabel(/Replace the image/)).toBeVisible();
  await capturePage(page, testInfo, "link-preview-card");
  await card.getByRole("button", { name: "Remove preview" }).click();
  await expect(card.getByRole("status")).toHaveText(
    "The preview is removed: apps that show links read the destination's own page.",
  );
  await expect(card.getByRole("img", { name: "The preview's image" })).toHaveCount(0);
});
