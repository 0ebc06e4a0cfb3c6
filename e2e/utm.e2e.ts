import { type Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { baseUrl, capturePage } from "./support/helpers";
import { subscribedSessionForFile } from "./support/session";

/**
 * The UTM builder: a customer fills in the parameters for one link and saves them as a template,
 * applies the template to the next link they create, and edits the parameters when repointing.
 */
test.describe.configure({ mode: "serial", timeout: 180_000 });

const PERSON = "campaigns@permalink.test";
const SLUG = "summer-poster";
const SPRING = "https://example.com/menus/spring?lang=fr&utm_source=poster&utm_medium=print&utm_campaign=spring%20menu";
const SUMMER = "https://example.com/menus/summer?utm_source=poster&utm_medium=print&utm_campaign=spring%20menu";

let page: Page;
subscribedSessionForFile(PERSON, (opened) => (page = opened));

const createForm = () => page.getByRole("region", { name: "Create a link" });

test("saves UTM parameters as a template, applies it to a new link, and edits them when repointing", async ({}, testInfo) => {
  await page.goto("/dashboard");
  const form = createForm();
  const destination = form.getByLabel("Destination", { exact: true });
  await destination.fill("example.com/menus/spring?lang=fr");
  await form.getByText("UTM parameters (optional)").click();
  await form.getByLabel("Source (utm_source)").fill("poster");
  await form.getByLabel("Medium (utm_medium)").fill("print");
  await form.getByLabel("Campaign (utm_campaign)").fill("spring menu");
  // The parameters are part of the destination as it is typed.
  await expect(destination).toHaveValue(
    "example.com/menus/spring?lang=fr&utm_source=poster&utm_medium=print&utm_campaign=spring%20menu",
  );
  await form.getByLabel("Save these parameters as a template named").fill("Spring posters");
  await form.getByRole("button", { name: "Save as template" }).click();
  await expect(form.getByRole("status").filter({ hasText: 'Saved the template "Spring posters".' })).toBeVisible();
  await capturePage(page, testInfo, "utm-builder");
  await form.getByRole("button", { name: "Create link" }).click();
  const created = page.getByTestId("created-short-url");
  await expect(created).toBeVisible();
  const springVisit = await fetch((await created.textContent())!, { redirect: "manual" });
  expect(springVisit.headers.get("location")).toBe(SPRING);

  // The next link: the template fills the fields and the destination.
  await page.reload();
  await destination.fill("example.com/menus/summer");
  await form.getByLabel("Custom slug (optional)").fill(SLUG);
  await form.getByText("UTM parameters (optional)").click();
  await form.getByLabel("Saved template").selectOption({ label: "Spring posters" });
  await form.getByRole("button", { name: "Apply template" }).click();
  await expect(form.getByLabel("Campaign (utm_campaign)")).toHaveValue("spring menu");
  await expect(destination).toHaveValue("example.com/menus/summer?utm_source=poster&utm_medium=print&utm_campaign=spring%20menu");
  await form.getByRole("button", { name: "Create link" }).click();
  await expect(created).toHaveText(`${baseUrl()}/${SLUG}`);
  const summerVisit = await fetch(`${baseUrl()}/${SLUG}`, { redirect: "manual" });
  expect(summerVisit.headers.get("location")).toBe(SUMMER);

  // Repointing shows the destination's parameters in the fields; changing one changes the destination.
  await page
    .getByRole("row", { name: new RegExp(SLUG) })
    .getByRole("link", { name: new RegExp(`/${SLUG}$`) })
    .click();
  await expect(page.getByTestId("link-destination")).toHaveText(SUMMER);
  const repoint = page.getByRole("region", { name: "Repoint" });
  await expect(repoint.getByText("UTM parameters (3 set)")).toBeVisible();
  await expect(repoint.getByLabel("Source (utm_source)")).toHaveValue("poster");
  await expect(repoint.getByLabel("Campaign (utm_campaign)")).toHaveValue("spring menu");
  await repoint.getByLabel("Medium (utm_medium)").fill("");
  await repoint.getByLabel("Content (utm_content)").fill("table-tent");
  await expect(repoint.getByLabel("New destination")).toHaveValue(
    "https://example.com/menus/summer?utm_source=poster&utm_campaign=spring%20menu&utm_content=table-tent",
  );
  await capturePage(page, testInfo, "utm-repoint");
  await repoint.getByRole("button", { name: "Repoint", exact: true }).click();
  const repointed = "https://example.com/menus/summer?utm_source=poster&utm_campaign=spring%20menu&utm_content=table-tent";
  await expect(repoint.getByRole("status")).toHaveText(`Repointed to ${repointed}.`);
  await expect(page.getByTestId("link-destination")).toHaveText(repointed);
});

test("keeps a repeated or empty parameter the person did not touch, when creating and when repointing", async () => {
  const slug = "autumn-poster";
  const typed = "example.com/menus/autumn?utm_source=poster&utm_medium=&utm_source=flyer&utm_campaign=autumn";
  await page.goto("/dashboard");
  const form = createForm();
  await form.getByLabel("Destination", { exact: true }).fill(typed);
  await form.getByLabel("Custom slug (optional)").fill(slug);
  await expect(form.getByLabel("Source (utm_source)")).toHaveValue("poster");
  await form.getByRole("button", { name: "Create link" }).click();
  await expect(page.getByTestId("created-short-url")).toHaveText(`${baseUrl()}/${slug}`);
  const created = await fetch(`${baseUrl()}/${slug}`, { redirect: "manual" });
  expect(created.headers.get("location")).toBe(`https://${typed}`);

  // Changing the campaign changes only the campaign: both sources and the empty medium stay as they were.
  await page
    .getByRole("row", { name: new RegExp(slug) })
    .getByRole("link", { name: new RegExp(`/${slug}$`) })
    .click();
  const repoint = page.getByRole("region", { name: "Repoint" });
  await repoint.getByLabel("Campaign (utm_campaign)").fill("harvest");
  const repointed = "https://example.com/menus/autumn?utm_source=poster&utm_medium=&utm_source=flyer&utm_campaign=harvest";
  await expect(repoint.getByLabel("New destination")).toHaveValue(repointed);
  await repoint.getByRole("button", { name: "Repoint", exact: true }).click();
  await expect(repoint.getByRole("status")).toHaveText(`Repointed to ${repointed}.`);
  await expect(page.getByTestId("link-destination")).toHaveText(repointed);
  const visit = await fetch(`${baseUrl()}/${slug}`, { redirect: "manual" });
  expect(visit.headers.get("location")).toBe(repointed);
});
