import { test as base } from "@playwright/test";

/** The app's address is known only once the global setup has started it. */
export const test = base.extend({
  baseURL: async ({}, provide) => provide(process.env.E2E_BASE_URL),
});

export { expect } from "@playwright/test";
