import { type Page } from "@playwright/test";
import { readFile } from "node:fs/promises";
import { expect, test } from "./support/fixtures";
import { baseUrl, capturePage, requestWithHost, setDnsRecords } from "./support/helpers";
import { subscribedSessionForFile } from "./support/session";

/**
 * Moving in: a customer with a verified custom domain brings a Bitly export whose codes live on
 * that domain, checks it (one row is refused), imports it while the page follows the job, reads
 * and downloads the refused row, and a printed code on their domain lands on its destination.
 */
test.describe.configure({ mode: "serial", timeout: 180_000 });

const PERSON = "mover@permalink.test";
const HOSTNAME = "go.printed.example.com";

/**
 * A Bitly export (its columns and quoting) with three codes on the customer's domain; the first
 * was printed with a 0 and a 1 (characters we never issue), the third points inside a network.
 */
const BITLY_EXPORT =
  "\uFEFFid,link,custom_bitlinks,long_url,title,created_at,tags,archived\r\n" +
  `${HOSTNAME}/Brunch01,https://${HOSTNAME}/Brunch01,,https://example.com/menus/brunch,` +
  `"Brunch menu, printed",2024-03-01T10:00:00+0000,menus|print,false\r\n` +
  `${HOSTNAME}/dinner,https://${HOSTNAME}/dinner,,https://example.com/menus/dinner,Dinner,2024-03-02T10:00:00+0000,menus,false\r\n` +
  `${HOSTNAME}/router,https://${HOSTNAME}/router,,http://10.0.0.1/admin,Router,2024-03-03T10:00:00+0000,,false\r\n`;

let page: Page;
subscribedSessionForFile(PERSON, (opened) => (page = opened));

/** Adds the domain and creates the records the Domains page lists, as the customer does at their DNS provider. */
async function verifyDomain(): Promise<void> {
  await page.goto("/dashboard/domains");
  await page.getByLabel("Hostname").fill(HOSTNAME);
  await page.getByRole("button", { name: "Add domain" }).click();
  const card = page.getByRole("region", { name: HOSTNAME });
  const records = card.getByRole("table", { name: `DNS records for ${HOSTNAME}` });
  const txtValue = (await records.getByRole("row", { name: /TXT/ }).locator("code").nth(1).textContent())!;
  await setDnsRecords(`_permalink.${HOSTNAME}`, { txt: [txtValue] });
  await setDnsRecords(HOSTNAME, { cname: new URL(baseUrl()).hostname });
  await card.getByRole("button", { name: "Verify now" }).click();
  await expect(card.getByRole("status")).toHaveText(`Checked ${HOSTNAME} just now: verified, status active.`);
}

test("checks and imports a Bitly export on the verified domain; the refused row shows, the printed code resolves", async ({}, testInfo) => {
  await verifyDomain();
  await page.goto("/dashboard");
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Import" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Import links" })).toBeVisible();
  await expect(page.getByText("None yet.")).toBeVisible();
  await capturePage(page, testInfo, "import-empty");

  await page.getByLabel("Exported file (CSV or JSON)").setInputFiles({
    name: "bitly-links.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(BITLY_EXPORT),
  });
  await page.getByLabel("Exported from").selectOption({ label: "Bitly" });
  await expect(page.getByLabel("Keep the codes on").locator("option")).toHaveText([
    "Each link's own domain, when it is verified here",
    HOSTNAME,
  ]);
  await page.getByRole("button", { name: "Check the file" }).click();

  const check = page.getByTestId("import-check");
  await expect(check.getByTestId("import-outcome")).toHaveText(
    "2 links would be created, 0 are already here, 1 row has a problem. Nothing was changed yet.",
  );
  await expect(check.getByText("Checked: 3 of 3 rows")).toBeVisible();
  const checkErrors = check.getByRole("table", { name: "Rows with a problem" });
  await expect(checkErrors.getByRole("row")).toHaveCount(2);
  await expect(checkErrors.getByRole("row").nth(1).locator("td").first()).toHaveText("4");
  // Each problem names the row's link, so the person finds it without counting rows.
  await expect(checkErrors.getByRole("row").nth(1).locator("td").nth(1)).toHaveText(`https://${HOSTNAME}/router`);
  await capturePage(page, testInfo, "import-checked");

  // Nothing exists before the import: the code on the domain is not a link yet.
  expect((await requestWithHost(HOSTNAME, "/Brunch01")).status).toBe(404);

  await page.getByRole("button", { name: "Import 2 links" }).click();
  const run = page.getByTestId("import-run");
  await expect(run.getByRole("progressbar")).toBeVisible();
  await expect(run.getByTestId("import-outcome")).toHaveText(/^2 links created, 0 already here, 1 row not imported\./);
  await expect(run.getByText("Imported: 3 of 3 rows")).toBeVisible();
  await expect(page.getByRole("button", { name: "Import 2 links" })).toBeDisabled();
  const runErrors = run.getByRole("table", { name: "Rows with a problem" });
  const refusal = (await runErrors.getByRole("row").nth(1).locator("td").nth(2).textContent())!;
  expect(refusal).toMatch(/\S/);
  expect(refusal).toBe(await checkErrors.getByRole("row").nth(1).locator("td").nth(2).textContent());

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    run.getByRole("button", { name: "Download the problems (CSV)" }).click(),
  ]);
  const csv = await readFile((await download.path())!, "utf8");
  expect(csv.split("\r\n")[0]).toBe('"row","link_or_destination","problem"');
  expect(csv).toContain(`4,"https://${HOSTNAME}/router",`);
  await capturePage(page, testInfo, "import-done");

  // The printed code on the customer's domain lands on its destination; the refused one was never stored.
  const visit = await requestWithHost(HOSTNAME, "/Brunch01");
  expect([301, 302, 307, 308]).toContain(visit.status);
  expect(visit.location).toBe("https://example.com/menus/brunch");
  expect((await requestWithHost(HOSTNAME, "/router")).status).toBe(404);

  // The job is listed, and opening it shows the same report.
  await page.goto("/dashboard/imports");
  const earlier = page.getByRole("region", { name: "Earlier imports and checks" });
  await expect(earlier.getByRole("listitem")).toHaveCount(2);
  await expect(earlier.getByRole("listitem").first()).toContainText("3 rows: 2 created, 0 already here, 1 with a problem.");
  await earlier.getByRole("link", { name: /^Import of / }).click();
  await expect(page.getByRole("region", { name: "Chosen import" }).getByTestId("import-outcome")).toContainText(
    "2 links created",
  );
});

test("the links list shows the imported titles and tags, filters by tag, tags selected rows, and exports", async ({}, testInfo) => {
  await page.goto(`/dashboard?domain=${HOSTNAME}`);
  const brunch = page.getByRole("row", { name: /brunch/ });
  await expect(brunch).toContainText("Brunch menu, printed");
  await expect(brunch.getByRole("list", { name: "Tags" }).getByRole("listitem")).toHaveText(["menus", "print"]);

  await page.getByRole("search", { name: "Search links" }).getByLabel("Tag").selectOption("print");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/tag=print/);
  await expect(page.getByRole("row", { name: /brunch/ })).toBeVisible();
  await expect(page.getByRole("row", { name: /dinner/ })).toHaveCount(0);

  await page.goto(`/dashboard?domain=${HOSTNAME}`);
  await page.getByRole("checkbox", { name: /Select .*\/dinner$/ }).check();
  await page.getByRole("group", { name: "Selected links" }).getByLabel("Tag").fill("print");
  await page.getByRole("button", { name: "Add tag" }).click();
  await expect(page.getByRole("status").filter({ hasText: 'Tagged 1 link with "print".' })).toBeVisible();
  await page.goto("/dashboard?tag=print");
  await expect(page.getByRole("row", { name: /dinner/ })).toBeVisible();

  // Tags come in the workspace's colours, chosen on the Tags page.
  await page.getByRole("link", { name: "Tags and colours" }).click();
  await page.getByLabel("Colour of print").selectOption("Green");
  await expect(page.getByRole("status").filter({ hasText: '"print" is green now.' })).toBeVisible();
  await capturePage(page, testInfo, "tags-imported");
  await page.goto("/dashboard?tag=print");
  await expect(
    page
      .getByRole("row", { name: /dinner/ })
      .getByRole("list", { name: "Tags" })
      .getByText("print", { exact: true }),
  ).toHaveClass(/bg-green-100/);
  await capturePage(page, testInfo, "links-tagged");

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Export all (CSV)" }).click(),
  ]);
  const exported = await readFile((await download.path())!, "utf8");
  // Every text cell is quoted (lib/http/csv.ts), so no cell can start a spreadsheet formula.
  expect(exported.split("\r\n")[0]).toBe(
    '"id","short_url","slug","host","destination","status","tags","title","created_at","archived_at","imported_from","scan_limit_after","scan_limit_destination","password_protected","preview_title","preview_description","preview_image_url","preview_count","scans_30d"',
  );
  const brunchLine = exported.split("\r\n").find((line) => line.includes(`"https://${HOSTNAME}/Brunch01",`))!;
  expect(brunchLine).toContain(`,"Brunch01","${HOSTNAME}","https://example.com/menus/brunch",`);
  expect(brunchLine).toContain(`,"menus, print","Brunch menu, printed",`);
});

test("follows a long import's progress and cancels it: the rows under way are saved, the report says what was done", async ({}, testInfo) => {
  const rows = 5_000;
  const file = `url,title\r\n${Array.from({ length: rows }, (_, index) => `https://example.com/moving/${index},Item ${index}`).join("\r\n")}\r\n`;
  await page.goto("/dashboard/imports");
  await page.getByLabel("Exported file (CSV or JSON)").setInputFiles({
    name: "other-service.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(file),
  });
  await page.getByLabel("Exported from").selectOption({ label: "Another service (any file with a destination column)" });
  await page.getByRole("button", { name: "Check the file" }).click();
  await expect(page.getByTestId("import-check").getByTestId("import-outcome")).toContainText("5,000 links would be created", {
    timeout: 120_000,
  });
  await page.getByRole("button", { name: "Import 5,000 links" }).click();
  const run = page.getByTestId("import-run");
  await expect(run.getByText(/^Importing: [\d,]+ of 5,000 rows$/)).toBeVisible();
  await capturePage(page, testInfo, "import-under-way");
  await run.getByRole("button", { name: "Cancel the import" }).click();

  const outcome = run.getByTestId("import-outcome");
  await expect(outcome).toHaveText(
    /^Import cancelled after [\d,]+ of 5,000 rows: [\d,]+ links created, 0 already here, 0 rows not imported\./,
  );
  const [, handled, created] = /after ([\d,]+) of .*: ([\d,]+) links created/.exec((await outcome.textContent())!)!;
  const count = (text: string) => Number(text.replaceAll(",", ""));
  expect(count(handled!)).toBeLessThan(rows);
  expect(count(created!)).toBe(count(handled!));
  await expect(run.getByText(`Cancelled after ${handled} of 5,000 rows`, { exact: true })).toBeVisible();
  await expect(run.getByRole("button", { name: "Cancel the import" })).toHaveCount(0);
  await capturePage(page, testInfo, "import-cancelled");

  await page.goto("/dashboard/imports");
  await expect(page.getByRole("region", { name: "Earlier imports and checks" }).getByRole("listitem").first()).toContainText(
    `5,000 rows: cancelled after ${handled}.`,
  );
});
