import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { evm } from "mppx/client";
import { McpClient } from "mppx/mcp-sdk/client";
import type { PrivateKeyAccount } from "viem/accounts";

type ConnectOptions = { token?: string; headers?: Record<string, string>; fetch?: typeof fetch };

/** The SDK's Client on its Streamable HTTP transport, connected to `${baseUrl}/api/mcp` (initialize done). */
export async function connectMcp(baseUrl: string, options: ConnectOptions = {}): Promise<Client> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const transport = new StreamableHTTPClientTransport(new URL("/api/mcp", baseUrl), {
    requestInit: { headers },
    ...(options.fetch && { fetch: options.fetch }),
  });
  const client = new Client({ name: "permalink-tests", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** The text of a tool result's first content item. */
export function textOf(result: CallToolResult | Awaited<ReturnType<Client["callTool"]>>): string {
  const first = (result.content as CallToolResult["content"])[0];
  if (first?.type !== "text") throw new Error(`The result's first content is not text: ${JSON.stringify(result)}`);
  return first.text;
}

/** Which of another workspace's resources a tool call names, if any: a link's id, a domain's in the path, or create_link's domain_id. */
export type Names = "link" | "domain" | "domain_id" | null;

/**
 * The one table of calls the suites walk for "every tool": each tool an account uses (all but
 * buy_link) once, naming `ids.link` wherever a tool takes a link's id and `ids.domain` as
 * create_link's domain_id and a domain's id. A caller without credentials gets the same OAuth challenge (HTTP 401) from each; another
 * workspace's ids get the HTTP API's not-found answer from each call that names one.
 */
export function accountToolCalls(
  ids: { link: string; domain: string },
  destination: () => string,
): { name: string; args: Record<string, unknown>; names: Names }[] {
  return [
    { name: "create_link", args: { destination: destination(), domain_id: ids.domain }, names: "domain_id" },
    { name: "list_links", args: {}, names: null },
    { name: "get_link", args: { id: ids.link }, names: "link" },
    { name: "get_link_history", args: { id: ids.link }, names: "link" },
    { name: "repoint_link", args: { id: ids.link, destination: destination() }, names: "link" },
    {
      name: "set_link_rules",
      args: { id: ids.link, rules: [{ when: { os: ["ios"] }, destination: destination() }] },
      names: "link",
    },
    {
      name: "schedule_repoint",
      args: { id: ids.link, schedule: [{ at: Date.now() + 86_400_000, destination: destination() }] },
      names: "link",
    },
    { name: "set_link_password", args: { id: ids.link, password: "spring-2026" }, names: "link" },
    {
      name: "set_scan_limit",
      args: { id: ids.link, scan_limit: { after: 100, destination: destination() } },
      names: "link",
    },
    { name: "set_link_preview", args: { id: ids.link, preview: { title: "Spring menu" } }, names: "link" },
    { name: "bulk_create_links", args: { links: [{ destination: destination() }] }, names: null },
    { name: "archive_link", args: { id: ids.link }, names: "link" },
    { name: "restore_link", args: { id: ids.link }, names: "link" },
    { name: "get_qr", args: { id: ids.link }, names: "link" },
    { name: "get_analytics", args: { link_id: ids.link }, names: "link" },
    { name: "list_domains", args: {}, names: null },
    { name: "set_domain_destinations", args: { id: ids.domain, root_destination: destination() }, names: "domain" },
    { name: "list_webhooks", args: {}, names: null },
    { name: "list_tags", args: {}, names: null },
    { name: "start_import", args: { file: `url\n${destination()}\n`, dry_run: "1" }, names: null },
    { name: "get_import", args: { id: "imp_none" }, names: null },
    { name: "get_account", args: {}, names: null },
  ];
}

/** An MPP agent over MCP: mppx's McpClient around the SDK client, paying with its `evm` charge method. */
export function mppMcpAgent(client: Client, wallet: PrivateKeyAccount, token: { name: string; version: string }) {
  return McpClient.wrap(client, { methods: [evm({ account: wallet, authorization: token })] });
}

/** The x402 MCP transport's keys (x402 specs/transports-v2/mcp.md). */
export const X402_PAYMENT = "x402/payment";
export const X402_PAYMENT_RESPONSE = "x402/payment-response";

/**
 * An x402 agent over MCP, as x402's MCP transport specifies it: call the tool, read the
 * PaymentRequired from a payment-required result (structuredContent, else content[0].text and
 * its x402/error wrapper), let x402's own client (@x402/core with @x402/evm's exact scheme) sign
 * the payload, and call again with it in _meta["x402/payment"]. (@x402/mcp, which packages these
 * steps, is not published on the npm registry this project installs from.)
 */
export function x402McpAgent(client: Client, wallet: PrivateKeyAccount) {
  const payments = new x402Client().register("eip155:*", new ExactEvmScheme(wallet));
  payments.setSpendControls(false);
  return {
    /** The payload answering this payment-required result. */
    pay: (required: PaymentRequired): Promise<PaymentPayload> => payments.createPaymentPayload(required),
    async callTool(
      name: string,
      args: Record<string, unknown>,
    ): Promise<{ result: CallToolResult; payment: PaymentPayload | null }> {
      const first = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const required = paymentRequiredOf(first);
      if (!required) return { result: first, payment: null };
      const payment = await payments.createPaymentPayload(required);
      const result = (await client.callTool({ name, arguments: args, _meta: { [X402_PAYMENT]: payment } })) as CallToolResult;
      return { result, payment };
    },
  };
}

/** x402's client-side reading of a payment-required tool result, in the specified order. */
export function paymentRequiredOf(result: CallToolResult): PaymentRequired | null {
  if (!result.isError) return null;
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  if (structured && "x402Version" in structured) return structured as unknown as PaymentRequired;
  const wrapped = (structured?.["x402/error"] as { data?: PaymentRequired } | undefined)?.data;
  if (wrapped) return wrapped;
  const first = result.content[0];
  if (first?.type !== "text") return null;
  try {
    const parsed = JSON.parse(first.text) as Record<string, unknown>;
    if ("x402Version" in parsed) return parsed as unknown as PaymentRequired;
    return (parsed["x402/error"] as { data?: PaymentRequired } | undefined)?.data ?? null;
  } catch {
    return null;
  }
}
