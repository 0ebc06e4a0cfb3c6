import { defineConfig } from "@playwright/test";
import { CHROMIUM } from "./support/chromium";

/**
 * The dashboard in a real browser: Debian's Chromium (Playwright's own download cannot reach this
 * network) against the app started as `npm start` starts it, on real PostgreSQL, with a real SMTP
 * server for the magic link. One worker: the flows build on each other (sign in, subscribe, create…).
 */
export default defineConfig({
  testDir: ".",
  testMatch: "**/*.e2e.ts",
  outputDir: "../test-results/e2e",
  globalSetup: "./support/global-setup.ts",
  workers: 1,
  fullyParallel: false,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  use: {
    browserName: "chromium",
    launchOptions: CHROMIUM,
    viewport: { width: 1280, height: 800 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
});
