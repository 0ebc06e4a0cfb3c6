import { resetConfig } from "@/lib/config";
import { openApiDocument } from "@/lib/openapi/document";
import { validate } from "mppx/discovery";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { call } from "../support/api";

const RECIPIENT = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(() => {
  vi.stubEnv("PAYMENT_RECIPIENT", RECIPIENT);
  vi.stubEnv("MPP_SECRET_KEY", "discovery-test-secret-of-at-least-32-bytes");
  vi.stubEnv("LINK_PRICE", "0.50");
  resetConfig();
});

afterAll(() => {
  vi.unstubAllEnvs();
  resetConfig();
});

describe("payment discovery in the OpenAPI document", () => {
  it("passes mppx's discovery validator with no error and no warning", async () => {
    const { status, body } = await call("GET", "/api/openapi.json");

    expect(status).toBe(200);
    expect(validate(body)).toEqual([]);
    expect(validate(openApiDocument())).toEqual([]);
  });

  it("marks exactly the payable operation with mppx's x-payment-info: the offer the 402 challenge makes", async () => {
    const document = openApiDocument();
    const marked = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation && "x-payment-info" in operation)
        .map(([method]) => `${method} ${path}`),
    );
    expect(marked).toEqual(["post /api/links"]);

    const challenge = await call("POST", "/api/links", { body: { destination: "https://example.com/discovered" } });
    const request = JSON.parse(
      Buffer.from(/request="([^"]+)"/.exec(challenge.headers.get("www-authenticate")!)![1]!, "base64url").toString(),
    );
    expect(document.paths["/api/links"]!.post!["x-payment-info"]).toEqual({
      offers: [
        {
          intent: "charge",
          method: "evm",
          amount: request.amount,
          currency: request.currency,
          recipient: request.recipient,
          description: "One permanent short link",
        },
      ],
    });
    expect(document.paths["/api/links"]!.post!.responses["402"]).toBeDefined();
  });

  it("leaves x-payment-info out on a deployment that takes no machine payments", () => {
    vi.stubEnv("MPP_SECRET_KEY", "");
    resetConfig();
    try {
      expect(openApiDocument().paths["/api/links"]!.post!["x-payment-info"]).toBeUndefined();
      expect(validate(openApiDocument())).toEqual([]);
    } finally {
      vi.stubEnv("MPP_SECRET_KEY", "discovery-test-secret-of-at-least-32-bytes");
      resetConfig();
    }
  });
});
