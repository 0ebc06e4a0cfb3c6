import { type Browser, type Locator, type Page } from "@playwright/test";
import { readFile } from "node:fs/promises";
import { decodeQr } from "../tests/support/images";
import { expect, test } from "./support/fixtures";
import { baseUrl, capturePage, subscribedSession } from "./support/helpers";

/**
 * The links list's row menu opens over the page, never clipped by the table's scroller: with three
 * rows and with twenty, at desktop and phone width, every item of every row's menu is on screen and
 * takes the click itself; the menu moves with the arrow keys, closes on Escape and after an action.
 */
test.describe.configure({ mode: "serial", timeout: 180_000 });

const PERSON = "row-menu@permalink.test";
const USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const ITEMS = ["Copy short link", "Download QR code", "Analytics", "Repoint", "Archive"];
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 375, height: 740 },
];

let browser: Browser;
let page: Page;
let consoleErrors: string[];
let apiKey: string;

test.beforeAll(async () => {
  ({ browser, page, consoleErrors } = await subscribedSession(PERSON, {
    userAgent: USER_AGENT,
    permissions: ["clipboard-read", "clipboard-write"],
  }));
  await page.goto("/dashboard/settings");
  await page.getByRole("button", { name: "Create an API key" }).click();
  apiKey = (await page.getByTestId("api-key-value").textContent())!;
});

test.afterAll(() => browser.close());
test.afterEach(() => expect(consoleErrors).toEqual([]));

/** Slugs may not use digits that read like letters (0, 1): the nth link is row-a, row-b… */
const slugOf = (n: number) => `row-${"abcdefghijkmnpqrstuvwxyz"[n - 1]}`;

/** Links as wide as a campaign makes them: a long UTM destination, a title and three tags each. */
async function createLinks(from: number, to: number): Promise<void> {
  const links = Array.from({ length: to - from + 1 }, (_, index) => {
    const n = from + index;
    return {
      slug: slugOf(n),
      destination:
        `https://example.com/shop/collections/spring-${n}/the-long-product-page?utm_source=newsletter` +
        `&utm_medium=email&utm_campaign=spring-sale-${n}&utm_content=hero-banner-button&utm_term=garden-furniture`,
      title: `Spring campaign, banner ${n}`,
      tags: ["spring", "newsletter", `wave-${n}`],
    };
  });
  const response = await page.request.post("/api/links/bulk", {
    headers: { Authorization: `Bearer ${apiKey}` },
    data: { links },
  });
  expect(response.status()).toBe(200);
  const { results } = (await response.json()) as { results: { status: number; error?: string }[] };
  expect(results.map((result) => result.error ?? result.status)).toEqual(links.map(() => 201));
}

/** The visible place of each link at this width: a table row on a desktop, a card on a phone. */
function rowOf(slug: string, phone: boolean): Locator {
  return phone
    ? page
        .getByRole("list", { name: /^Links/ })
        .getByRole("listitem")
        .filter({ hasText: `/${slug}` })
    : page.getByRole("row", { name: new RegExp(`/${slug}\\b`) });
}

/** Opens the row's menu and proves each item is on screen, unclipped, takes a click at its centre, and that the keys work. */
async function expectEveryItemReachable(row: Locator): Promise<void> {
  const trigger = row.getByRole("button", { name: /^Actions for / });
  await trigger.click();
  const menu = row.getByRole("menu");
  await expect(menu).toBeVisible();
  const items = menu.getByRole("menuitem");
  await expect(items).toHaveText(ITEMS);
  await expect(items.first()).toBeFocused();
  for (let index = 0; index < ITEMS.length; index++) {
    const item = items.nth(index);
    await expect(item).toBeInViewport({ ratio: 1 });
    const box = (await item.boundingBox())!;
    const takesTheClick = await item.evaluate(
      (element, [x, y]) => element.contains(document.elementFromPoint(x!, y!)),
      [box.x + box.width / 2, box.y + box.height / 2],
    );
    expect(takesTheClick, `${ITEMS[index]} is covered or clipped`).toBe(true);
    await item.click({ trial: true });
  }
  await page.keyboard.press("ArrowDown");
  await expect(items.nth(1)).toBeFocused();
  await page.keyboard.press("End");
  await expect(items.last()).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(items.first()).toBeFocused();
  await page.keyboard.press("ArrowUp");
  await expect(items.last()).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(menu).toBeHidden();
  await expect(trigger).toBeFocused();
}

/** Each item does its work from the menu, and the menu closes after it. */
async function chooseEveryItem(slug: string, phone: boolean): Promise<void> {
  const row = rowOf(slug, phone);
  const open = async () => {
    await row.getByRole("button", { name: /^Actions for / }).click();
    await expect(row.getByRole("menu")).toBeVisible();
  };
  await open();
  await row.getByRole("menuitem", { name: "Copy short link" }).click();
  await expect(row.getByRole("menu")).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: `Copied ${baseUrl()}/${slug}` })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${baseUrl()}/${slug}`);

  await open();
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    row.getByRole("menuitem", { name: "Download QR code" }).click(),
  ]);
  await expect(row.getByRole("menu")).toBeHidden();
  expect(await decodeQr(await readFile((await download.path())!))).toBe(`${baseUrl()}/${slug}?qr`);

  await open();
  await row.getByRole("menuitem", { name: "Archive" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Archived 1 link" })).toBeVisible();
  await page.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Restored 1 link" })).toBeVisible();

  for (const [name, address] of [
    ["Analytics", /\/dashboard\/analytics\?link_id=lnk_/],
    ["Repoint", /\/dashboard\/links\/lnk_\w+#repoint-heading$/],
  ] as const) {
    await open();
    await row.getByRole("menuitem", { name }).click();
    await expect(page).toHaveURL(address);
    await page.goto("/dashboard");
  }
}

for (const [count, slugs] of [
  [3, [slugOf(1), slugOf(2), slugOf(3)]],
  [20, [slugOf(1), slugOf(10), slugOf(20)]],
] as const) {
  test(`with ${count} wide rows every item of the row menu is reachable and clickable at 1280 and 375 px`, async ({}, testInfo) => {
    await createLinks(count === 3 ? 1 : 4, count);
    await page.goto("/dashboard");
    for (const viewport of WIDTHS) {
      const phone = viewport.width < 640;
      await page.setViewportSize(viewport);
      await expect(page.getByRole("link", { name: /\/row-[a-z]$/ }).filter({ visible: true })).toHaveCount(count);
      for (const slug of slugs) await expectEveryItemReachable(rowOf(slug, phone));
      await chooseEveryItem(slugs.at(-1)!, phone);
    }
    await page.setViewportSize(WIDTHS[0]!);
    // The destination gives way: the actions column stays inside the table's box at desktop width.
    const box = (await page.locator("main table").locator("xpath=..").boundingBox())!;
    for (const trigger of await page
      .getByRole("button", { name: /^Actions for / })
      .filter({ visible: true })
      .all()) {
      const button = (await trigger.boundingBox())!;
      expect(button.x + button.width).toBeLessThanOrEqual(box.x + box.width);
    }
    await page
      .getByRole("row", { name: new RegExp(`/${slugs[1]}\\b`) })
      .getByRole("button", { name: /^Actions for / })
      .click();
    await capturePage(page, testInfo, `links-row-menu-${count}`);
  });
}
