import { type Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { capturePage } from "./support/helpers";
import { subscribedSessionForFile } from "./support/session";

/**
 * A link that reacts: routing rules with the "test as" preview, and a scheduled change of
 * destination, edited on the link's page. One person signs in and subscribes once.
 */
test.describe.configure({ mode: "serial", timeout: 180_000 });

const PERSON = "rules@permalink.test";

let page: Page;
// The viewer lives in Sydney: a scheduled change is entered and shown there, and kept in UTC.
subscribedSessionForFile(PERSON, (opened) => (page = opened), { timezoneId: "Australia/Sydney" });

test("routes visitors by rules, previews them as a visitor, and schedules a change of destination", async ({}, testInfo) => {
  await page.goto("/dashboard");
  await page.getByLabel("Destination", { exact: true }).fill("https://example.com/menu");
  await page.getByLabel("Custom slug (optional)").fill("reacting-menu");
  await page.getByRole("button", { name: "Create link" }).click();
  const shortUrl = (await page.getByTestId("created-short-url").textContent())!;
  await page
    .getByRole("row", { name: /reacting-menu/ })
    .getByRole("link", { name: /\/reacting-menu$/ })
    .click();
  await expect(page.getByRole("heading", { name: "Routing rules" })).toBeVisible();

  await page.getByRole("button", { name: "Add a rule" }).click();
  await page.getByRole("textbox", { name: "Countries" }).fill("au, nz");
  await page.getByRole("checkbox", { name: "Mobile" }).check();
  await page.getByRole("textbox", { name: "Send them to" }).fill("https://example.com/menu-au");
  await page.getByRole("button", { name: "Add a rule" }).click();
  await page.getByRole("textbox", { name: "Languages" }).nth(1).fill("fr");
  // Typed without https://, as the create form allows: completed the same way.
  await page.getByRole("textbox", { name: "Send them to" }).nth(1).fill("example.com/menu-fr");
  await page.getByRole("button", { name: "Save rules" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved 2 rules" })).toBeVisible();

  await page.getByRole("textbox", { name: "Country", exact: true }).fill("AU");
  await page.getByRole("combobox", { name: "Device", exact: true }).selectOption("mobile");
  await page.getByRole("button", { name: "Show where they go" }).click();
  await expect(page.getByTestId("test-as-result")).toHaveText("Rule 1: https://example.com/menu-au");
  await page.getByRole("combobox", { name: "Device", exact: true }).selectOption("desktop");
  await page.getByRole("textbox", { name: "Language", exact: true }).fill("fr");
  await page.getByRole("button", { name: "Show where they go" }).click();
  await expect(page.getByTestId("test-as-result")).toHaveText("Rule 2: https://example.com/menu-fr");

  // A real visit: a French speaker is sent where rule 2 says, everyone else to the link's destination.
  const french = await page.request.get(shortUrl, { headers: { "Accept-Language": "fr-FR,fr;q=0.9" }, maxRedirects: 0 });
  expect(french.headers().location).toBe("https://example.com/menu-fr");
  const english = await page.request.get(shortUrl, { headers: { "Accept-Language": "en-AU" }, maxRedirects: 0 });
  expect(english.headers().location).toBe("https://example.com/menu");

  // An unsafe rule destination is refused in plain words, naming the rule.
  await page.getByRole("textbox", { name: "Send them to" }).nth(1).fill("http://127.0.0.1/admin");
  await page.getByRole("button", { name: "Save rules" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Rule 2's destination" })).toBeVisible();
  await page.getByRole("textbox", { name: "Send them to" }).nth(1).fill("https://example.com/menu-fr");

  await expect(page.getByText("Times are in your time zone, Australia/Sydney.")).toBeVisible();
  await page.getByRole("button", { name: "Add a change" }).click();
  await page.getByLabel("Change 1: from (Australia/Sydney)").fill("2031-01-01T09:00");
  // Nine in the morning in Sydney (summer time, UTC+11) is ten at night before, in UTC.
  await expect(page.getByTestId("repoint-0-utc")).toHaveText("2030-12-31 22:00 UTC");
  await page.getByLabel("Change 1: new destination").fill("example.com/menu-2031");
  await page.getByRole("button", { name: "Save schedule" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Scheduled 1 change" })).toBeVisible();
  await capturePage(page, testInfo, "link-rules-and-schedule");

  await page.reload();
  await expect(page.getByRole("textbox", { name: "Countries" }).first()).toHaveValue("AU, NZ");
  await expect(page.getByLabel("Change 1: from (Australia/Sydney)")).toHaveValue("2031-01-01T09:00");
  await expect(page.getByTestId("repoint-0-utc")).toHaveText("2030-12-31 22:00 UTC");
  await expect(page.getByLabel("Change 1: new destination")).toHaveValue("https://example.com/menu-2031");
  await expect(page.getByRole("textbox", { name: "Send them to" }).nth(1)).toHaveValue("https://example.com/menu-fr");
});

test("adds a webhook with its events, shows the secret once, tests it, retries and disables it", async ({}, testInfo) => {
  await page.goto("/dashboard/settings/webhooks");
  await expect(page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await page.getByLabel("Address that receives the events").fill("https://hooks.example.org/permalink");
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Choose at least one event." })).toBeVisible();
  await page.getByLabel("link.created").check();
  await page.getByLabel("link.updated").check();
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await expect(page.getByTestId("webhook-secret")).toHaveText(/^whsec_[A-Za-z0-9+/]{43}=$/);
  const card = page.getByRole("region", { name: "https://hooks.example.org/permalink" });
  await expect(card).toContainText("Events: link.created, link.updated");

  // Nothing listens at that address here: the test's outcome says so in words, and the log offers a retry.
  await card.getByRole("button", { name: "Send a test" }).click();
  await expect(card.getByRole("status").filter({ hasText: "Not delivered" })).toBeVisible({ timeout: 20_000 });
  await expect(card.getByText(/ping, try 1/)).toBeVisible();
  await card.getByRole("button", { name: "Retry now" }).click();
  await expect(card.getByRole("status").filter({ hasText: "sent again within moments" })).toBeVisible();
  await capturePage(page, testInfo, "settings-webhooks");

  await card.getByRole("button", { name: "Disable" }).click();
  await expect(card.getByRole("status").filter({ hasText: "Disabled: nothing is sent" })).toBeVisible();
  await expect(card.getByRole("button", { name: "Enable" })).toBeVisible();

  // The secret was shown once: a fresh visit of the page no longer has it.
  await page.reload();
  await expect(page.getByTestId("webhook-secret")).toHaveCount(0);
});

test("webhooks have their own tab; an endpoint is edited, its secret rotated once, the same address refused twice, and it is deleted", async ({}, testInfo) => {
  await page.goto("/dashboard");
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Webhooks" }).click();
  await expect(page).toHaveURL(/\/dashboard\/settings\/webhooks$/);
  await expect(page.getByRole("link", { name: "Webhooks", exact: true })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("link", { name: "API key & workspace" })).not.toHaveAttribute("aria-current", "page");
  // Each event says what it means beside its code name.
  await expect(page.getByLabel("link.scanned")).toBeVisible();
  await expect(page.locator("label").filter({ hasText: "link.scanned" })).toContainText("someone visited a short link");

  // The same address twice would get every message twice: refused, with what was typed kept.
  await page.getByLabel("Address that receives the events").fill("https://hooks.example.org/permalink");
  await page.getByLabel("link.archived").check();
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "already sends events to this address" })).toBeVisible();
  await expect(page.getByLabel("Address that receives the events")).toHaveValue("https://hooks.example.org/permalink");

  const card = page.getByRole("region", { name: "https://hooks.example.org/permalink" });
  await card.getByRole("button", { name: "Edit" }).click();
  await card.getByLabel("Address that receives the events").fill("https://hooks.example.org/permalink/v2");
  await card.getByLabel("Note (optional)").fill("Stock system");
  await card.getByLabel("link.updated").uncheck();
  await card.getByLabel("link.archived").check();
  await card.getByRole("button", { name: "Save changes" }).click();
  const edited = page.getByRole("region", { name: "https://hooks.example.org/permalink/v2" });
  await expect(edited).toContainText("Stock system. Events: link.created, link.archived");

  await edited.getByRole("button", { name: /^Rotate the secret/ }).click();
  await expect(edited.getByRole("button", { name: "Yes, rotate the secret" })).toBeFocused();
  await edited.getByRole("button", { name: "Yes, rotate the secret" }).click();
  await expect(edited.getByTestId("webhook-secret")).toHaveText(/^whsec_[A-Za-z0-9+/]{43}=$/);
  await capturePage(page, testInfo, "settings-webhooks-rotated");
  await page.reload();
  await expect(page.getByTestId("webhook-secret")).toHaveCount(0);

  await edited.getByRole("button", { name: /^Delete/ }).click();
  await edited.getByRole("button", { name: "Cancel" }).click();
  await expect(edited).toBeVisible();
  await edited.getByRole("button", { name: /^Delete/ }).click();
  await edited.getByRole("button", { name: "Yes, delete the endpoint" }).click();
  await expect(page.getByRole("region", { name: "https://hooks.example.org/permalink/v2" })).toHaveCount(0);
  await expect(page.getByText("No endpoints yet.")).toBeVisible();
});
