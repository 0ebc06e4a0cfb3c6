import { resetConfig } from "@/lib/config";
import { closeEmail } from "@/lib/email";
import { resetWriteLimiter } from "@/lib/http/write-limit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, call, newUser } from "../support/api";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";

let smtp: TestSmtpServer;

beforeAll(async () => {
  smtp = await startSmtpServer();
  process.env.SMTP_URL = smtp.url;
  resetConfig();
  await resetWriteLimiter();
});

afterAll(async () => {
  closeEmail();
  await smtp.close();
  delete process.env.SMTP_URL;
  resetConfig();
});

/** Asks for a magic link as the sign-in form does (next-auth's CSRF token, then the form post), from `client`. */
async function askForLink(email: string, client: string) {
  const csrf = await call("GET", "/api/auth/csrf", { headers: { "x-forwarded-for": client } });
  const cookie = (csrf.headers.getSetCookie() ?? []).map((line) => line.split(";")[0]).join("; ");
  return call("POST", "/api/auth/signin/email", {
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, "x-forwarded-for": client },
    rawBody: new URLSearchParams({ email, csrfToken: csrf.body.csrfToken, callbackUrl: "/dashboard", json: "true" }).toString(),
  });
}

const sentTo = (address: string) => smtp.messages.filter((message) => message.envelopeTo.includes(address)).length;

describe("sign-in e-mails", () => {
  it("sends at most 3 a minute to one address, whatever network asks, then answers with a plain sentence", async () => {
    const address = `limited-${Date.now()}@example.com`;
    const answers = [];
    for (let index = 0; index < 5; index++) answers.push(await askForLink(address, `203.0.${index}.9`));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429, 429]);
    expect(answers[3]!.body.error).toMatch(/^Too many sign-in e-mails were asked for/);
    expect(answers[3]!.body.url).toMatch(/\/signin\?error=EmailRateLimited$/);
    expect(Number(answers[3]!.headers.get("retry-after"))).toBeGreaterThan(0);
    await smtp.messageTo(address);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sentTo(address)).toBe(3);
  });

  it("sends at most 10 a minute from one client network (an IPv4 /24), and other networks are not held up", async () => {
    const statuses = [];
    for (let index = 0; index < 11; index++) {
      statuses.push((await askForLink(`network-${index}-${Date.now()}@example.com`, `198.51.100.${index + 1}`)).status);
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    expect((await askForLink(`elsewhere-${Date.now()}@example.com`, "192.0.2.1")).status).toBe(200);
  });

  it("answers an address with an account exactly as one without", async () => {
    const member = await newUser("known");
    const stranger = `stranger-${Date.now()}@example.com`;
    const answers: ApiResponse[] = [];
    for (const address of [member.email, stranger]) {
      for (let index = 0; index < 4; index++) answers.push(await askForLink(address, `100.64.${index}.1`));
    }
    const shape = (answer: ApiResponse) => [answer.status, JSON.stringify(answer.body).replace(/email=[^"&]*/g, "")];
    expect(answers.slice(0, 4).map(shape)).toEqual(answers.slice(4).map(shape));
  });
});
