import { resetConfig } from "@/lib/config";
import { printedMessage } from "@/lib/email";
import { afterEach, describe, expect, it, vi } from "vitest";
import { signInLinksPrinted, signInMethods } from "./sign-in-methods";

/** The sign-in methods a production process offers with exactly these settings. */
function methodsWith(env: Record<string, string | undefined>): string[] {
  vi.stubEnv("NODE_ENV", "production");
  for (const name of [
    "SMTP_URL",
    "GITHUB_CLIENT_ID",
    "GITHUB_CLIENT_SECRET",
    "GOOGLE_CLIENT_ID",
    "GOOGLE_CLIENT_SECRET",
    "BASE_URL",
  ])
    vi.stubEnv(name, env[name] ?? "");
  resetConfig();
  return signInMethods().map((method) => method.id);
}

afterEach(() => {
  vi.unstubAllEnvs();
  resetConfig();
});

describe("sign-in methods", () => {
  it("offers the printed e-mail sign-in only on a local deployment with nothing configured", () => {
    for (const local of ["", "http://localhost:3000", "http://127.0.0.1:8080", "http://[::1]:3000", "http://app.localhost"]) {
      expect(methodsWith({ BASE_URL: local }), local || "the default BASE_URL").toEqual(["email"]);
      expect(signInLinksPrinted()).toBe(true);
    }
    // A public deployment never prints a sign-in link: without a mail server it offers no e-mail sign-in at all.
    expect(methodsWith({ BASE_URL: "https://go.example.com" })).toEqual([]);
    expect(methodsWith({ BASE_URL: "http://127.example.com" })).toEqual([]);
    // Something configured on a local deployment: that, and links go through the mail server.
    expect(methodsWith({ BASE_URL: "http://localhost:3000", GITHUB_CLIENT_ID: "id", GITHUB_CLIENT_SECRET: "secret" })).toEqual([
      "github",
    ]);
    expect(methodsWith({ BASE_URL: "http://localhost:3000", SMTP_URL: "smtp://127.0.0.1:2525" })).toEqual(["email"]);
    expect(signInLinksPrinted()).toBe(false);
    expect(methodsWith({ BASE_URL: "https://go.example.com", SMTP_URL: "smtp://mail.example.com" })).toEqual(["email"]);
  });

  it("prints a message with each link on its own line", () => {
    const link = "http://localhost:3000/api/auth/callback/email?token=abc&email=you%40example.com";
    const printed = printedMessage({
      to: "you@example.com",
      subject: "Sign in",
      text: `Sign in with this link:\n\n${link}\n\nBye.\n`,
    });
    expect(printed.split("\n")).toContain(link);
    expect(printed).toContain("E-mail to you@example.com");
  });
});
