import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../server/app-process";
import { expect, test } from "./support/fixtures";
import { collectOutput, errorLines, stopGroup, waitUntilAnswering } from "./support/global-setup";
import { capturePage, watchConsole } from "./support/helpers";

/**
 * The README's two commands on a fresh machine: `npm start` with nothing configured (no SMTP_URL,
 * no DATABASE_URL, no NODE_ENV, no secrets), only a free port and an empty data folder standing in
 * for a fresh checkout's `.data`. The build is the suite's (the global setup built it).
 */
test("a newcomer's npm start signs in through the link printed in the terminal", async ({ browser }, testInfo) => {
  test.setTimeout(240_000);
  const port = await freePort();
  const dataDir = await mkdtemp(path.join(tmpdir(), "permalink-first-run-"));
  const app: ChildProcess = spawn("npm", ["start"], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    // No NODE_ENV, as in a newcomer's shell (Next's types make it required).
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      DATA_DIR: dataDir,
      NEXT_TELEMETRY_DISABLED: "1",
    } as unknown as NodeJS.ProcessEnv,
  });
  const output = collectOutput(app);
  try {
    const origin = `http://localhost:${port}`;
    await waitUntilAnswering(origin, app, output);
    // Plain words on a line of their own, whatever the log's format: the real address, and where the sign-in link will appear.
    await expect
      .poll(() => output.text())
      .toMatch(new RegExp(`^Ready: open ${origin} — sign in with any e-mail; the sign-in link appears here$`, "m"));
    const context = await browser.newContext({ baseURL: origin });
    const page = await context.newPage();
    const consoleErrors = watchConsole(page);

    await page.goto("/signin");
    await expect(page.getByText("the link is printed in the terminal running the server")).toBeVisible();
    await capturePage(page, testInfo, "first-run-sign-in");
    await page.getByLabel("E-mail address").fill("newcomer@example.com");
    await page.getByRole("button", { name: "E-mail me a sign-in link" }).click();
    await expect(page.getByRole("heading", { name: "Open the link in your terminal" })).toBeVisible();
    await capturePage(page, testInfo, "first-run-check-terminal");

    // The link a person copies from the terminal: alone on its line, on the address they browse.
    const printed = new RegExp(`^(${origin}/api/auth/callback/email\\?\\S+)$`, "m");
    await expect.poll(() => printed.exec(output.text())?.[1], { timeout: 15_000 }).toBeTruthy();
    await page.goto(printed.exec(output.text())![1]!);
    await expect(page).toHaveURL(`${origin}/dashboard`);
    await expect(page.getByRole("heading", { name: "Links" })).toBeVisible();
    await capturePage(page, testInfo, "first-run-dashboard");
    expect(consoleErrors).toEqual([]);
    await context.close();
  } finally {
    await stopGroup(app);
    await rm(dataDir, { recursive: true, force: true });
  }
  expect(errorLines(output.text())).toEqual([]);
});
