import { authorizationScheme } from "@/lib/http/authorization";
import { Credential, Mcp, PaymentRequest } from "mppx";
import { getAddress, isAddress } from "viem";
import { z } from "zod";
import { sha256 } from "./gateway";
import type { CredentialReading, PaymentCredential, PaymentTerms } from "./types";

const PAYMENT_SIGNATURE = "payment-signature";

/** Where an x402 client puts its payment payload in a tool call (x402's MCP transport, specs/transports-v2/mcp.md). */
export const X402_PAYMENT_META_KEY = "x402/payment";
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

const authorization = z.object({
  from: z.string().refine(isAddress),
  nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
});

const x402Payload = z.object({
  x402Version: z.number(),
  accepted: z.object({ network: z.string(), asset: z.string(), payTo: z.string(), amount: z.string() }),
  payload: z.object({ authorization }),
  extensions: z.object({ mppx: z.object({ info: z.object({ opaque: z.string().optional() }) }).optional() }).optional(),
});

/** True when the request pays (a Payment credential, or PAYMENT-SIGNATURE) or carries no credentials at all. */
export function paysWithoutAccount(request: Request): boolean {
  const scheme = authorizationScheme(request);
  return scheme === null || scheme === "payment";
}

/**
 * Reads `Authorization: Payment <credential>` (MPP, or an x402 payload some agents send there)
 * or `PAYMENT-SIGNATURE` (x402). Nothing is verified here; mppx does that.
 */
export function readPaymentCredential(request: Request): CredentialReading {
  const paymentToken = /^payment\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  const signature = request.headers.get(PAYMENT_SIGNATURE)?.trim();
  const raw = paymentToken ?? signature;
  if (!raw) return { kind: "none" };
  const decoded = decodeBase64Json(raw);
  if (decoded === undefined) return malformed("it is not base64-encoded JSON");
  const credentialHash = sha256(raw);
  if (paymentToken && !looksLikeX402(decoded)) return fromMpp(paymentToken, credentialHash);
  return fromX402(decoded, credentialHash);
}

/**
 * A tool call's payment, from its `_meta`: an MPP credential under `org.paymentauth/credential`
 * (mppx's MCP binding) or an x402 payload under `x402/payment` (x402's MCP transport). Each is
 * written as the header it travels in over HTTP, then read exactly as there, so a payment is the
 * same payment whichever door it comes through.
 */
export function readToolCallCredential(meta: Record<string, unknown> | undefined): CredentialReading {
  const mpp = meta?.[Mcp.credentialMetaKey];
  const x402 = meta?.[X402_PAYMENT_META_KEY];
  if (mpp !== undefined) {
    let header: string;
    try {
      header = Credential.serialize(mpp as Credential.Credential);
    } catch {
      return malformed("it is not an MPP credential (challenge, payload, source)");
    }
    return readPaymentCredential(new Request("http://mcp.invalid/", { headers: { authorization: header } }));
  }
  if (x402 !== undefined) {
    if (typeof x402 !== "object" || x402 === null)
      return malformed("it is not an x402 payment payload with an EIP-3009 authorization");
    const signature = Buffer.from(JSON.stringify(x402)).toString("base64");
    return readPaymentCredential(new Request("http://mcp.invalid/", { headers: { [PAYMENT_SIGNATURE]: signature } }));
  }
  return { kind: "none" };
}

function fromMpp(token: string, credentialHash: string): CredentialReading {
  let credential: ReturnType<typeof Credential.deserialize>;
  try {
    credential = Credential.deserialize(`Payment ${token}`);
  } catch {
    return malformed("it is not an MPP credential (challenge, payload, source)");
  }
  const proof = authorization.safeParse(credential.payload);
  if (!proof.success) return malformed("its payload is not an EIP-3009 authorization (from, nonce)");
  const request = credential.challenge.request as {
    amount?: unknown;
    currency?: unknown;
    recipient?: unknown;
    methodDetails?: { chainId?: unknown };
  };
  const terms: PaymentTerms = {
    network: `eip155:${String(request.methodDetails?.chainId)}`,
    asset: String(request.currency),
    recipient: String(request.recipient),
    amount: String(request.amount),
  };
  const binding = credential.challenge.opaque ? decodeOpaque(credential.challenge.opaque) : null;
  return present("mpp", new Headers({ authorization: `Payment ${token}` }), credentialHash, proof.data, terms, binding);
}

function fromX402(decoded: unknown, credentialHash: string): CredentialReading {
  const parsed = x402Payload.safeParse(decoded);
  if (!parsed.success) return malformed("it is not an x402 payment payload with an EIP-3009 authorization");
  const { accepted, payload, extensions } = parsed.data;
  const terms: PaymentTerms = {
    network: accepted.network,
    asset: accepted.asset,
    recipient: accepted.payTo,
    amount: accepted.amount,
  };
  const opaque = extensions?.mppx?.info.opaque;
  const headers = new Headers({ [PAYMENT_SIGNATURE]: Buffer.from(JSON.stringify(decoded)).toString("base64") });
  return present("x402", headers, credentialHash, payload.authorization, terms, opaque ? decodeOpaque(opaque) : null);
}

function present(
  protocol: PaymentCredential["protocol"],
  headers: Headers,
  credentialHash: string,
  proof: z.infer<typeof authorization>,
  terms: PaymentTerms,
  binding: Record<string, string> | null,
): CredentialReading {
  const payer = getAddress(proof.from);
  const paymentKey = `${terms.network}:${payer}:${proof.nonce.toLowerCase()}`;
  return { kind: "present", credential: { protocol, headers, credentialHash, paymentKey, payer, terms, binding } };
}

/** The x402 shape (a numeric x402Version, no MPP challenge), whichever header it came in. */
function looksLikeX402(decoded: unknown): boolean {
  return (
    typeof decoded === "object" &&
    decoded !== null &&
    typeof (decoded as { x402Version?: unknown }).x402Version === "number" &&
    !("challenge" in decoded)
  );
}

function decodeBase64Json(value: string): unknown {
  if (!BASE64.test(value)) return undefined;
  try {
    return JSON.parse(Buffer.from(value, "base64").toString("utf8"));
  } catch {
    return undefined;
  }
}

function decodeOpaque(opaque: string): Record<string, string> | null {
  try {
    const value = PaymentRequest.deserialize(opaque) as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, string>) : null;
  } catch {
    return null;
  }
}

function malformed(reason: string): CredentialReading {
  return { kind: "malformed", reason: `The payment credential is malformed: ${reason}.` };
}
