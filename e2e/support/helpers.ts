import AxeBuilder from "@axe-core/playwright";
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  expect,
  type Page,
  type TestInfo,
} from "@playwright/test";
import { appendFile, mkdir, readdir, readFile } from "node:fs/promises";
import { get as httpGet } from "node:http";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { apiWordsIn } from "../../lib/api/customer-words";
import type { FakeDnsRecords } from "../../tests/support/fake-dns-server";
import { CHROMIUM } from "./chromium";

export const baseUrl = () => process.env.E2E_BASE_URL!;

type Mail = { to: string[]; subject: string; text: string };

/** Waits for the newest message to `address` received by the suite's SMTP server after `since`, and returns its link matching `pattern`. */
export async function linkInMail(address: string, since: number, pattern: RegExp): Promise<string> {
  const mailbox = process.env.E2E_MAILBOX!;
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const files = (await readdir(mailbox)).filter((file) => Number(file.split("-")[0]) >= since).sort();
    for (const file of files.reverse()) {
      const mail = JSON.parse(await readFile(path.join(mailbox, file), "utf8")) as Mail;
      const link = pattern.exec(mail.text)?.[1];
      if (mail.to.includes(address) && link) return link;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`No message with a link like ${pattern} reached ${address}.`);
}

/** Sets a name's records on the suite's DNS server, which the app's resolver asks (see startDnsControl in global-setup). */
export async function setDnsRecords(name: string, records: FakeDnsRecords): Promise<void> {
  const response = await fetch(`${process.env.E2E_DNS_CONTROL}/names/${encodeURIComponent(name)}`, {
    method: "PUT",
    body: JSON.stringify(records),
  });
  expect(response.status).toBe(204);
}

const MAGIC_LINK = /(https?:\/\/\S+\/api\/auth\/callback\/email\S+)/;

/** Signs in through the e-mail form (here, or on the sign-in page the app sent the browser to) and the link the SMTP server received. */
export async function signInByMagicLink(page: Page, address: string, options: { alreadyOnSignIn?: boolean } = {}): Promise<void> {
  const since = Date.now();
  if (!options.alreadyOnSignIn) await page.goto("/signin");
  await page.getByLabel("E-mail address").fill(address);
  await page.getByRole("button", { name: "E-mail me a sign-in link" }).click();
  await expect(page.getByRole("heading", { name: "Check your e-mail" })).toBeVisible();
  await page.goto(await linkInMail(address, since, MAGIC_LINK));
  await expect(page).not.toHaveURL(/\/signin/);
}

/** Subscribes the page's current workspace to Unlimited through the local checkout, as a customer would. */
export async function subscribeToUnlimited(page: Page): Promise<void> {
  await page.goto("/dashboard/billing");
  await page.getByRole("button", { name: "Choose Unlimited monthly" }).click();
  await page.getByRole("button", { name: "Complete purchase" }).click();
  await expect(page.getByText("Purchase complete")).toBeVisible();
}

/** A browser with one page signed in as `person` on a workspace subscribed to Unlimited, and what its console logs as errors. */
export type SubscribedSession = { browser: Browser; context: BrowserContext; page: Page; consoleErrors: string[] };

export async function subscribedSession(person: string, contextOptions: BrowserContextOptions = {}): Promise<SubscribedSession> {
  const browser = await chromium.launch(CHROMIUM);
  const context = await browser.newContext({ baseURL: baseUrl(), ...contextOptions });
  const page = await context.newPage();
  const consoleErrors = watchConsole(page);
  await signInByMagicLink(page, person);
  await subscribeToUnlimited(page);
  return { browser, context, page, consoleErrors };
}

/** No serious or critical violation from axe on the page as it is now. */
export async function expectAccessible(page: Page): Promise<void> {
  // Next streams the page's <title> and re-renders it after a server action, so for a moment the
  // document may have none: wait for it (a page that never gets one still fails here) before axe looks.
  await expect(page).toHaveTitle(/\S/);
  const results = await new AxeBuilder({ page }).analyze();
  const blocking = results.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  expect(
    blocking.map(
      (violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(" ")).join(", ")})`,
    ),
  ).toEqual([]);
}

/**
 * Keeps a screenshot of the page at desktop width and at a 375-pixel phone width (test-results/e2e/screenshots),
 * checks axe at both, that the phone layout does not scroll sideways, and that no element on it
 * reaches past the screen's edges, even inside a scroller (code blocks apart, which scroll on purpose).
 * A customer's page (the dashboard, an invitation, the local billing pages) says nothing in the API's words.
 */
export async function capturePage(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const directory = path.join(testInfo.project.outputDir, "screenshots");
  await expectCustomerWords(page, name);
  await expectJavaScriptWithinBudget(page, testInfo, name);
  await page.setViewportSize({ width: 1280, height: 800 });
  await expectAccessible(page);
  await page.screenshot({ path: path.join(directory, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 375, height: 740 });
  await expectAccessible(page);
  await page.screenshot({ path: path.join(directory, `${name}-phone.png`), fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  const culprits = overflow > 0 ? await elementsPastTheRightEdge(page) : [];
  expect(overflow, `${name} scrolls sideways at 375 px; past the edge: ${culprits.join(", ")}`).toBeLessThanOrEqual(0);
  expect(await elementsOffScreen(page), `${name} at 375 px has elements past the screen's edges`).toEqual([]);
  const formShare = await formShareOfFirstScreen(page);
  await appendFile(path.join(testInfo.project.outputDir, "phone-first-screen.txt"), `${name}\t${formShare.toFixed(2)}\n`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

/**
 * The docs and the API reference speak the API's language on purpose, and the local billing
 * provider's stand-in pages tell the operator running it which setting bills for real; every
 * other page speaks the customer's.
 */
const API_PAGES = /^\/(docs|api|llms\.txt|billing\/local)(\/|$)|^\/$/;

/** No method and path, setting name, standard's number or address range anywhere in the page's text, shown or folded. */
export async function expectCustomerWords(page: Page, name: string): Promise<void> {
  if (API_PAGES.test(new URL(page.url()).pathname)) return;
  const text = await page.evaluate(() => {
    const copy = document.body.cloneNode(true) as HTMLElement;
    for (const code of copy.querySelectorAll("script, style, template")) code.remove();
    return copy.textContent ?? "";
  });
  expect(apiWordsIn(text), `${name} shows the API's words`).toEqual([]);
}

/**
 * How much of the first phone screen below the page's header (its <main>) is form: the union of the
 * forms' boxes over that strip, from 0 to 1.
 */
export async function formShareOfFirstScreen(page: Page): Promise<number> {
  return page.evaluate(() => {
    const top = Math.max(0, document.querySelector("main")?.getBoundingClientRect().top ?? 0) + scrollY;
    const bottom = scrollY + innerHeight;
    if (bottom <= top) return 0;
    const spans = [...document.querySelectorAll("form")]
      .map((form) => form.getBoundingClientRect())
      .filter((box) => box.height > 0)
      .map((box) => [Math.max(top, box.top + scrollY), Math.min(bottom, box.bottom + scrollY)] as const)
      .filter(([from, to]) => to > from)
      .sort((a, b) => a[0] - b[0]);
    let covered = 0;
    let reached = top;
    for (const [from, to] of spans) {
      if (to <= reached) continue;
      covered += to - Math.max(from, reached);
      reached = to;
    }
    return covered / (bottom - top);
  });
}

/**
 * The elements that reach past the screen's right edge with nothing clipping them, named so a failure
 * says where to look. A positioned element is clipped only by scrollers between it and its
 * containing block, so its chain goes through offsetParent, not parentElement.
 */
async function elementsPastTheRightEdge(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const edge = document.documentElement.clientWidth;
    const clipped = (element: Element): boolean => {
      let node: Element | null = element;
      while (node && node !== document.body) {
        const position: string = getComputedStyle(node).position;
        if (position === "fixed") return false;
        const next: Element | null = position === "absolute" ? (node as HTMLElement).offsetParent : node.parentElement;
        if (next && next !== document.body && getComputedStyle(next).overflowX !== "visible") return true;
        node = next;
      }
      return false;
    };
    return [...document.body.querySelectorAll("*")]
      .filter((element) => element.getBoundingClientRect().right > edge + 0.5 && !clipped(element))
      .slice(0, 5)
      .map(
        (element) =>
          `<${element.tagName.toLowerCase()} class="${element.getAttribute("class") ?? ""}"> to ` +
          `${Math.round(element.getBoundingClientRect().right)} px`,
      );
  });
}

/**
 * Every visible element whose box reaches past the screen's left or right edge, clipped by a scroller
 * or not: on a phone nothing should hide off to the side. Code blocks scroll on purpose (and take
 * focus for it); visually hidden text is one pixel wide and goes where it likes.
 */
async function elementsOffScreen(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const edge = document.documentElement.clientWidth;
    return [...document.body.querySelectorAll("*")]
      .filter((element) => {
        const box = element.getBoundingClientRect();
        if (box.width <= 1 || box.height <= 1 || element.closest("pre")) return false;
        return box.right > edge + 0.5 || box.left < -0.5;
      })
      .slice(0, 8)
      .map((element) => {
        const box = element.getBoundingClientRect();
        const text = (element.textContent ?? "").trim().slice(0, 30);
        const tag = `<${element.tagName.toLowerCase()} class="${element.getAttribute("class") ?? ""}">`;
        return `${tag} "${text}" from ${Math.round(box.left)} to ${Math.round(box.right)} px`;
      });
  });
}

/** Fails the test on any console error or uncaught exception in the page. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  // A failed load's console line names only its status: the address comes from its location, and
  // whether the router asked for it as a prefetch from the response the page saw.
  const prefetches = new Set<string>();
  page.on("response", (response) => {
    const headers = response.request().headers();
    if (response.status() >= 400 && (headers["next-router-prefetch"] || headers["next-router-segment-prefetch"])) {
      prefetches.add(response.url());
    }
  });
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const url = message.location().url;
    errors.push(`${message.text()} (${url}${prefetches.has(url) ? ", a router prefetch" : ""})`);
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return errors;
}

/** The budget: no page ships more than 250 kB of JavaScript, gzipped. */
const JAVASCRIPT_BUDGET_BYTES = 250 * 1024;

/**
 * Every script the page loaded (Next's chunks, as the browser fetched them), gzipped and summed;
 * appended to test-results/e2e/javascript-sizes.txt and held to the budget.
 */
async function expectJavaScriptWithinBudget(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const urls = await page.evaluate(() => [
    ...new Set(
      [...document.querySelectorAll("script[src]")]
        .map((script) => (script as HTMLScriptElement).src)
        .concat(
          performance
            .getEntriesByType("resource")
            .filter((entry) => (entry as PerformanceResourceTiming).initiatorType === "script")
            .map((entry) => entry.name),
        ),
    ),
  ]);
  let total = 0;
  for (const url of urls) total += gzipSync(await (await page.request.get(url)).body()).length;
  await mkdir(testInfo.project.outputDir, { recursive: true });
  await appendFile(
    path.join(testInfo.project.outputDir, "javascript-sizes.txt"),
    `${name}\t${(total / 1024).toFixed(1)} kB gzipped\t${urls.length} scripts\n`,
  );
  expect(total, `${name} ships ${total} bytes of gzipped JavaScript`).toBeLessThanOrEqual(JAVASCRIPT_BUDGET_BYTES);
}

/** A GET to the app with another Host header, as a visitor of a custom domain pointed at it sends (fetch cannot set Host). */
export function requestWithHost(hostname: string, path: string): Promise<{ status: number; location: string | undefined }> {
  const { hostname: address, port } = new URL(baseUrl());
  return new Promise((resolve, reject) => {
    httpGet({ host: address, port, path, headers: { Host: hostname } }, (response) => {
      response.resume();
      resolve({ status: response.statusCode!, location: response.headers.location });
    }).on("error", reject);
  });
}
