import type { BrowserContextOptions, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { subscribedSession, type SubscribedSession } from "./helpers";

/**
 * One browser signed in as `person` on a subscribed workspace for the whole file: opened before its
 * first test, closed after its last, and each test fails on an error its page logged. `use` is
 * handed the page once it is open.
 */
export function subscribedSessionForFile(
  person: string,
  use: (page: Page) => void,
  contextOptions: BrowserContextOptions = {},
): void {
  let session: SubscribedSession | undefined;
  test.beforeAll(async () => {
    session = await subscribedSession(person, contextOptions);
    use(session.page);
  });
  test.afterAll(() => session?.browser.close());
  test.afterEach(() => expect(session?.consoleErrors).toEqual([]));
}
