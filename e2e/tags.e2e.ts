import { type Locator, type Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { baseUrl, capturePage } from "./support/helpers";
import { subscribedSessionForFile } from "./support/session";

/**
 * Tags in the dashboard: a customer adds a tag with its colour, gives it to a link, renames it,
 * recolours it and deletes it after reading that the link stays and only loses the tag.
 */
test.describe.configure({ mode: "serial", timeout: 180_000 });

const PERSON = "tagger@permalink.test";
const SLUG = "autumn-menu";

let page: Page;
subscribedSessionForFile(PERSON, (opened) => (page = opened));

const tagList = () => page.getByRole("list", { name: "Tags", exact: true });
const linkRow = () => page.getByRole("row", { name: new RegExp(SLUG) });
/** A tag's chip in its card (the card's buttons also name the tag, to screen readers only, after it). */
const chip = (item: Locator, name: string) => item.getByText(name, { exact: true }).first();

test("adds a tag with a colour, renames it, recolours it and deletes it; its link stays", async ({}, testInfo) => {
  await page.goto("/dashboard");
  await page.getByLabel("Destination", { exact: true }).fill("https://example.com/menus/autumn");
  await page.getByLabel("Custom slug (optional)").fill(SLUG);
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.getByTestId("created-short-url")).toHaveText(`${baseUrl()}/${SLUG}`);

  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Tags" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Tags" })).toBeVisible();
  await expect(page.getByText("No tags yet.", { exact: false })).toBeVisible();
  await capturePage(page, testInfo, "tags-empty");

  // Add: a name and a colour.
  await page.getByLabel("Name", { exact: true }).fill("Seasonal menus");
  await page.getByLabel("Colour", { exact: true }).selectOption({ label: "Green" });
  await page.getByRole("button", { name: "Add tag" }).click();
  await expect(page.getByRole("status").filter({ hasText: 'Added the tag "Seasonal menus" in green.' })).toBeVisible();
  const added = tagList().getByRole("listitem", { name: "Seasonal menus" });
  await expect(chip(added, "Seasonal menus")).toHaveClass(/bg-green-100/);

  // The same name in other letters is refused in words, and what was typed stays to be corrected.
  await page.getByLabel("Name", { exact: true }).fill("seasonal MENUS");
  await page.getByRole("button", { name: "Add tag" }).click();
  await expect(page.getByRole("alert").filter({ hasText: 'already has a tag named "seasonal MENUS"' })).toBeVisible();
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue("seasonal MENUS");
  await capturePage(page, testInfo, "tags-listed");

  // The link carries it.
  await page.goto("/dashboard");
  await page.getByRole("checkbox", { name: new RegExp(`Select .*/${SLUG}$`) }).check();
  await page.getByRole("group", { name: "Selected links" }).getByLabel("Tag").fill("Seasonal menus");
  await page.getByRole("button", { name: "Add tag" }).click();
  await expect(page.getByRole("status").filter({ hasText: 'Tagged 1 link with "Seasonal menus".' })).toBeVisible();

  // Rename: every link that carries it shows the new name.
  await page.getByRole("link", { name: "Tags and colours" }).click();
  await tagList().getByLabel("Name of Seasonal menus").fill("Autumn menus");
  await tagList().getByRole("button", { name: "Rename Seasonal menus" }).click();
  await expect(page.getByRole("status").filter({ hasText: 'Renamed: the tag is "Autumn menus" now' })).toBeVisible();
  const renamed = tagList().getByRole("listitem", { name: "Autumn menus" });
  await expect(chip(renamed, "Autumn menus")).toBeVisible();
  await expect(tagList().getByRole("listitem", { name: "Seasonal menus" })).toHaveCount(0);

  // Recolour.
  await renamed.getByLabel("Colour of Autumn menus").selectOption({ label: "Purple" });
  await expect(page.getByRole("status").filter({ hasText: '"Autumn menus" is purple now.' })).toBeVisible();
  await page.reload();
  await expect(chip(renamed, "Autumn menus")).toHaveClass(/bg-purple-100/);
  await renamed.getByRole("link", { name: /Links with this tag/ }).click();
  await expect(page).toHaveURL(/tag=Autumn(\+|%20)menus/);
  await expect(linkRow().getByRole("list", { name: "Tags" }).getByText("Autumn menus", { exact: true })).toHaveClass(
    /bg-purple-100/,
  );

  // Delete, after a question that says the links stay.
  await page.goto("/dashboard/tags");
  await renamed.getByRole("button", { name: "Delete the tag Autumn menus" }).click();
  const question = renamed.getByRole("group", { name: "Confirm: Delete the tag Autumn menus" });
  await expect(question).toContainText('Delete the tag "Autumn menus"?');
  await expect(question).toContainText("The links that carry it stay as they are and keep working; they only lose this tag.");
  await capturePage(page, testInfo, "tags-delete-question");
  await question.getByRole("button", { name: 'Yes, delete "Autumn menus"' }).click();
  await expect(page.getByRole("status").filter({ hasText: 'Deleted the tag "Autumn menus".' })).toContainText(
    "Its links are unchanged and keep working",
  );
  await expect(tagList()).toHaveCount(0);
  await expect(page.getByText("No tags yet.", { exact: false })).toBeVisible();

  await page.goto("/dashboard");
  await expect(linkRow()).toBeVisible();
  await expect(linkRow().getByRole("list", { name: "Tags" })).toHaveCount(0);
  const visit = await fetch(`${baseUrl()}/${SLUG}`, { redirect: "manual" });
  expect(visit.headers.get("location")).toBe("https://example.com/menus/autumn");
});
