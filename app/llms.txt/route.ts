import { otherMethods } from "@/lib/api/methods";
import { config } from "@/lib/config";
import { TOOLS } from "@/lib/mcp/toolset";

// The addresses and the price come from runtime configuration, not the build's.
export const dynamic = "force-dynamic";

/** The llms.txt convention: where an agent starts. */
export function GET(): Response {
  const { BASE_URL, LINK_PRICE, PAYMENT_ASSET_NAME, PAYMENT_NETWORK } = config();
  const base = BASE_URL;
  const text = [
    "# Permalink",
    "",
    "> Permanent short links and QR codes: a code that has been issued never stops resolving. New " +
      "links start in quarantine, where each visit runs a live safety check.",
    "",
    `An agent without an account can buy one permanent link for ${LINK_PRICE} ${PAYMENT_ASSET_NAME} ` +
      `(${PAYMENT_NETWORK}): POST /api/links without credentials answers 402 with an MPP challenge ` +
      `(WWW-Authenticate: Payment) and an x402 challenge (PAYMENT-REQUIRED); pay either and send the ` +
      `same request again. The first purchase of a wallet also returns an API key that lists and ` +
      `repoints the links it bought.`,
    "",
    `MCP: ${base}/api/mcp is a Model Context Protocol server (Streamable HTTP, stateless). Tools: ` +
      `${TOOLS.map((tool) => tool.name).join(", ")} (get_qr returns the image). Send Authorization: ` +
      `Bearer <API key> to act on your workspace; without credentials, list the tools and call ` +
      `buy_link, which answers with both payment challenges (MPP under ` +
      `_meta["org.paymentauth/payment-required"], x402 in the first text as {"x402/error": …}); pay ` +
      `one and call it again with the credential in _meta ("org.paymentauth/credential" or ` +
      `"x402/payment") to get the PaidLink and, on a wallet's first purchase, an API key.`,
    "",
    "## Docs",
    "",
    `- [Agents and MCP](${base}/docs/agents): connecting an MCP client (configuration snippets), the tools, buying a link with buy_link`,
    `- [Machine payments](${base}/docs/payments): the purchase step by step, with a working example ` +
      `for MPP (mppx) and for x402 (@x402/fetch)`,
    `- [OpenAPI document](${base}/api/openapi.json): every operation; POST /api/links carries x-payment and mppx's x-payment-info`,
    `- [API reference](${base}/docs): the same, for people`,
    "",
  ].join("\n");
  return new Response(text, { headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=300" } });
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
