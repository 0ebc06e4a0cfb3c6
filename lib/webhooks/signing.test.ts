import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { newSigningSecret } from "./secret";
import { signatureHeaders } from "./signing";

describe("signatureHeaders", () => {
  it("signs as the Standard Webhooks library verifies", () => {
    const secret = newSigningSecret();
    const body = JSON.stringify({ type: "ping", timestamp: new Date().toISOString(), data: { note: "é ✓" } });
    const headers = signatureHeaders(secret, "msg_test", Date.now(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("fails verification for another secret or a changed body", () => {
    const secret = newSigningSecret();
    const headers = signatureHeaders(secret, "msg_test", Date.now(), '{"a":1}');
    expect(() => new Webhook(newSigningSecret()).verify('{"a":1}', headers)).toThrow();
    expect(() => new Webhook(secret).verify('{"a":2}', headers)).toThrow();
  });
});
