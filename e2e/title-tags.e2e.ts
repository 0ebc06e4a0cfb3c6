import { type Browser, type Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { baseUrl, capturePage, subscribedSession } from "./support/helpers";

/** A link's title and tags, given in the create form and changed on the link's own page. */
test.describe.configure({ mode: "serial", timeout: 180_000 });

const PERSON = "labels@permalink.test";

let browser: Browser;
let page: Page;
let consoleErrors: string[];

test.beforeAll(async () => {
  ({ browser, page, consoleErrors } = await subscribedSession(PERSON));
});

test.afterAll(() => browser.close());
test.afterEach(() => expect(consoleErrors).toEqual([]));

test("gives a link a title and tags when creating it, and changes them on the link's page", async ({}, testInfo) => {
  await page.goto("/dashboard");
  await expect(page).toHaveTitle(`Links — ${PERSON}'s workspace`);
  await page.getByLabel("Destination", { exact: true }).fill("https://example.com/spring-menu");
  await page.getByLabel("Custom slug (optional)").fill("tagged-menu");
  await page.getByLabel("Title (optional)").fill("Spring menu, table cards");
  await page.getByLabel("Tags (optional)").fill("menus, spring");
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.getByTestId("created-short-url")).toHaveText(`${baseUrl()}/tagged-menu`);
  const row = page.getByRole("row", { name: /\/tagged-menu\b/ });
  await expect(row).toContainText("Spring menu, table cards");
  await expect(row.getByRole("list", { name: "Tags" }).getByRole("listitem")).toHaveText(["menus", "spring"]);
  await capturePage(page, testInfo, "links-with-title-and-tags");

  // A refused create keeps the title and tags as typed.
  await page.getByLabel("Destination", { exact: true }).fill("https://example.com/other");
  await page.getByLabel("Title (optional)").fill("Too many tags");
  await page.getByLabel("Tags (optional)").fill(`menus, ${"x".repeat(41)}`);
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.getByLabel("Tags (optional)")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Tags (optional)")).toHaveValue(`menus, ${"x".repeat(41)}`);
  await expect(page.getByLabel("Title (optional)")).toHaveValue("Too many tags");

  await row.getByRole("link", { name: /\/tagged-menu$/ }).click();
  await expect(page).toHaveTitle(
    new RegExp(`^${new URL(baseUrl()).host.replace(/\./g, "\\.")}/tagged-menu — ${PERSON}'s workspace$`),
  );
  await expect(page.getByTestId("link-title")).toHaveText("Spring menu, table cards");
  await expect(page.getByTestId("link-tags")).toHaveText("menus, spring");
  const form = page.getByRole("region", { name: "Title and tags" });
  await expect(form.getByLabel("Title", { exact: true })).toHaveValue("Spring menu, table cards");
  await expect(form.getByLabel("Tags (optional)")).toHaveValue("menus, spring");

  await form.getByLabel("Tags (optional)").fill(`menus, ${"y".repeat(41)}`);
  await form.getByRole("button", { name: "Save title and tags" }).click();
  await expect(form.getByLabel("Tags (optional)")).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByLabel("Tags (optional)")).toHaveValue(`menus, ${"y".repeat(41)}`);

  await form.getByLabel("Title", { exact: true }).fill("Autumn menu");
  await form.getByLabel("Tags (optional)").fill("menus, autumn");
  await form.getByRole("button", { name: "Save title and tags" }).click();
  await expect(form.getByRole("status")).toHaveText('Saved: "Autumn menu", tagged autumn, menus.');
  await expect(page.getByTestId("link-title")).toHaveText("Autumn menu");
  await expect(page.getByTestId("link-tags")).toHaveText("autumn, menus");
  await capturePage(page, testInfo, "link-title-and-tags");

  // The list finds the link by its new title.
  await page.goto("/dashboard?q=Autumn");
  await expect(page.getByRole("row", { name: /\/tagged-menu\b/ })).toContainText("Autumn menu");
});
