import { createHmac } from "node:crypto";
import { signingKey } from "./secret";

export type SignatureHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

/**
 * The Standard Webhooks headers of one attempt: the message's id (the same on every retry), the
 * attempt's time in seconds, and `v1,` with the base64 HMAC-SHA256 of "id.timestamp.body" under
 * the key the secret carries.
 */
export function signatureHeaders(secret: string, messageId: string, sentAtMs: number, body: string): SignatureHeaders {
  const timestamp = String(Math.floor(sentAtMs / 1000));
  const signature = createHmac("sha256", signingKey(secret)).update(`${messageId}.${timestamp}.${body}`).digest("base64");
  return { "webhook-id": messageId, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}` };
}
