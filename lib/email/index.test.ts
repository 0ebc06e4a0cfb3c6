import { describe, expect, it } from "vitest";
import { smtpOptions } from "./index";

describe("SMTP_URL", () => {
  it("names host, port, TLS and credentials", () => {
    expect(smtpOptions("smtps://mailer%40example.com:p%40ss:word@smtp.example.com:2465")).toMatchObject({
      host: "smtp.example.com",
      port: 2465,
      secure: true,
      auth: { user: "mailer@example.com", pass: "p@ss:word" },
    });
  });

  it("defaults the port by scheme and sends no credentials when the URL has none", () => {
    const plain = smtpOptions("smtp://127.0.0.1");
    expect(plain).toMatchObject({ host: "127.0.0.1", port: 587, secure: false });
    expect(plain).not.toHaveProperty("auth");
    expect(smtpOptions("smtps://[::1]")).toMatchObject({ host: "::1", port: 465, secure: true });
  });
});
