import type { PaymentRequired } from "@/lib/http/payment-required";
import type { CreateLinkInput, PaidLink } from "@/lib/links/schemas";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Challenge, Credential, Mcp, Receipt } from "mppx";
import { readToolCallCredential } from "./credential";
import { buyLinkWith } from "./purchase";

/** x402's MCP transport (specs/transports-v2/mcp.md): the settlement on a paid result, and the wrapper of a payment-required text. */
const X402_PAYMENT_RESPONSE_META_KEY = "x402/payment-response";
const X402_ERROR = "x402/error";

/**
 * buy_link: the purchase of POST /api/links without an account, its credential read from the
 * call's `_meta`. The HTTP answer is carried over as MCP's payment bindings carry it:
 * - a 402 is an error result holding both challenges, as the HTTP 402 holds both headers: MPP's
 *   under `_meta["org.paymentauth/payment-required"]` (what mppx's McpClient reads from a tool
 *   result) and x402's PaymentRequired as content[0], wrapped in `x402/error` (what x402's MCP
 *   transport requires; it is not structuredContent, which the client would check against the
 *   PaidLink output schema);
 * - a 201 is the PaidLink, with MPP's receipt under `_meta["org.paymentauth/receipt"]` and, when
 *   x402 paid, the settlement under `_meta["x402/payment-response"]`.
 */
export async function buyLinkByToolCall(
  input: CreateLinkInput,
  meta: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const reading = readToolCallCredential(meta);
  const response = await buyLinkWith(reading, input);
  if (response.status === 402) return paymentRequiredResult(response);
  const paidLink = (await response.json()) as PaidLink;
  const challengeId = reading.kind === "present" && reading.credential.protocol === "mpp" ? mppChallengeId(meta) : null;
  return {
    content: [{ type: "text", text: JSON.stringify(paidLink) }],
    structuredContent: paidLink,
    _meta: receiptMeta(response, challengeId),
  };
}

async function paymentRequiredResult(response: Response): Promise<CallToolResult> {
  const body = (await response.json()) as PaymentRequired;
  const x402 = decodeBase64Json(response.headers.get("payment-required"));
  const challenges = Challenge.fromResponseList(response);
  return {
    isError: true,
    content: [
      { type: "text", text: JSON.stringify({ [X402_ERROR]: { code: 402, message: body.error, data: x402 } }) },
      { type: "text", text: JSON.stringify(body) },
    ],
    _meta: { [Mcp.paymentRequiredMetaKey]: { httpStatus: 402, challenges } },
  };
}

function receiptMeta(response: Response, challengeId: string | null): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const receipt = response.headers.get("payment-receipt");
  if (receipt && challengeId) meta[Mcp.receiptMetaKey] = { ...Receipt.deserialize(receipt), challengeId };
  const settlement = decodeBase64Json(response.headers.get("payment-response"));
  if (settlement) meta[X402_PAYMENT_RESPONSE_META_KEY] = settlement;
  return meta;
}

function mppChallengeId(meta: Record<string, unknown> | undefined): string | null {
  const credential = meta?.[Mcp.credentialMetaKey] as Credential.Credential | undefined;
  return credential?.challenge.id ?? null;
}

function decodeBase64Json(value: string | null): unknown {
  return value ? JSON.parse(Buffer.from(value, "base64").toString("utf8")) : undefined;
}
