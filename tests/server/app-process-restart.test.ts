import { idleScheduling } from "@/lib/idle-process";
import { startApp, type RunningApp } from "@/server/app-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newUser } from "../support/api";
import { testAppEnv } from "../support/app-env";
import { threadPolicies } from "../support/scheduling";

/**
 * Under `npm start` the front door (short links) and the application (dashboard and API) are two
 * processes. The application can die (a crash, the kernel's out-of-memory killer); the short links
 * must not die with it, and the application must come back by itself.
 */

let app: RunningApp;
/** The address BASE_URL defaults to, which the front door answers short links on. */
let baseUrl: string;

beforeAll(async () => {
  app = await startApp("front", testAppEnv());
  baseUrl = `http://localhost:${app.port}`;
}, 300_000);

afterAll(async () => {
  expect(await app?.stop(), "the server exits cleanly on SIGTERM").toBe(0);
}, 20_000);

/** The application processes the front has started, in order, from its log. */
function applicationPids(): number[] {
  return [...app.output().matchAll(/"applicationPid":(\d+)/g)].map((match) => Number(match[1]));
}

async function until<T>(check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Not reached within ${timeoutMs} ms.`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("the application process dying under npm start", () => {
  it("leaves short links redirecting, answers the rest 503 with a sentence, and comes back by itself", async () => {
    const { token } = await newUser("restart");
    const created = await fetch(`${baseUrl}/api/links`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ destination: "https://example.com/outlives" }),
    });
    expect(created.status).toBe(201);
    const { slug } = await created.json();
    const [first] = applicationPids();
    expect(first).toBeGreaterThan(0);
    if (idleScheduling().policy === "sched_idle")
      expect(new Set(threadPolicies(first!)), "the application takes only CPU the front's short links leave").toEqual(
        new Set(["idle"]),
      );

    process.kill(first!, "SIGKILL");
    const down = await until(async () => {
      const answer = await fetch(`${baseUrl}/api/links`, { headers: { authorization: `Bearer ${token}` } });
      return answer.status === 503 ? answer : undefined;
    }, 10_000);
    expect(down.headers.get("retry-after")).toBe("5");
    expect(await down.json()).toEqual({
      error: "The dashboard and API are restarting; short links keep working. Try again in a few seconds.",
    });
    const visit = await fetch(`${baseUrl}/${slug}`, { redirect: "manual" });
    expect(visit.status).toBe(302);
    expect(visit.headers.get("location")).toBe("https://example.com/outlives");

    const listed = await until(async () => {
      const answer = await fetch(`${baseUrl}/api/links`, { headers: { authorization: `Bearer ${token}` } });
      return answer.status === 200 ? answer : undefined;
    }, 120_000);
    expect((await listed.json()).links.map((link: { slug: string }) => link.slug)).toContain(slug);
    expect(applicationPids()).toHaveLength(2);
    if (idleScheduling().policy === "sched_idle")
      expect(new Set(threadPolicies(applicationPids()[1]!))).toEqual(new Set(["idle"]));
    expect(app.output()).toMatch(/the application process died; short links keep being answered/);
  }, 180_000);
});
