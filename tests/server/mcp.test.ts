import { analyticsQuery, analyticsSchema } from "@/lib/analytics/schemas";
import { accountSchema } from "@/lib/billing/schemas";
import { randomString } from "@/lib/db/random";
import { domainListSchema } from "@/lib/domains/schemas";
import { createLinkBody, linkListSchema, linkSchema, paidLinkSchema } from "@/lib/links/schemas";
import { SLUG_ALPHABET } from "@/lib/links/slugs";
import { toolSchema } from "@/lib/mcp/tool";
import { startApp, type RunningApp } from "@/server/app-process";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Challenge, Credential, Mcp } from "mppx";
import { evm } from "mppx/client";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { joinWorkspace, newUser } from "../support/api";
import { TEST_ZONE } from "../support/dns-server";
import { startFakeDnsServer, type FakeDnsServer } from "../support/fake-dns-server";
import { rawRequest } from "../support/http";
import { decodeQr } from "../support/images";
import {
  accountToolCalls,
  connectMcp,
  mppMcpAgent,
  paymentRequiredOf,
  textOf,
  X402_PAYMENT,
  X402_PAYMENT_RESPONSE,
  x402McpAgent,
} from "../support/mcp";
import { startFacilitator, type RunningFacilitator } from "../support/payments/facilitator";
import { Eip3009Ledger } from "../support/payments/ledger";
import { portabilityFindings } from "../support/schema-portability";

const REQUEST_TIMEOUT_MS = 60_000;
const NETWORK = "eip155:84532";
const TOKEN = { address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as Address, chainId: 84532, name: "USDC", version: "2" };

const recipient = privateKeyToAccount(generatePrivateKey()).address;
const ledger = new Eip3009Ledger(TOKEN, privateKeyToAccount(generatePrivateKey()).address);
let facilitator: RunningFacilitator;
let dns: FakeDnsServer;
let app: RunningApp;
const clients: Client[] = [];

beforeAll(async () => {
  facilitator = await startFacilitator(NETWORK, ledger);
  // This file's own DNS server, so a test can publish a custom domain's records; every other name answers a public address.
  dns = await startFakeDnsServer({}, { a: [TEST_ZONE.publicAddress] });
  const { DATABASE_URL, DATABASE_POOL_SIZE, AUTH_SECRET } = process.env;
  app = await startApp("front", {
    DATABASE_URL,
    DATABASE_POOL_SIZE,
    AUTH_SECRET,
    DNS_RESOLVER: dns.resolver,
    LINK_PRICE: "0.50",
    PAYMENT_NETWORK: NETWORK,
    PAYMENT_ASSET: TOKEN.address,
    PAYMENT_ASSET_NAME: TOKEN.name,
    PAYMENT_ASSET_VERSION: TOKEN.version,
    PAYMENT_ASSET_DECIMALS: "6",
    PAYMENT_RECIPIENT: recipient,
    X402_FACILITATOR_URL: facilitator.url,
    MPP_SECRET_KEY: "server-mcp-secret-key-of-at-least-32-bytes",
  });
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await app?.stop();
  await facilitator?.close();
  await dns?.close();
});

async function connect(options: { token?: string; headers?: Record<string, string> } = {}): Promise<Client> {
  const client = await connectMcp(app.url, options);
  clients.push(client);
  return client;
}

async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  meta?: Record<string, unknown>,
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args, ...(meta && { _meta: meta }) })) as CallToolResult;
}

let counter = 0;
const freshDestination = () => `https://example.com/mcp-server/${process.pid}/${++counter}`;

function newWallet(): PrivateKeyAccount {
  const wallet = privateKeyToAccount(generatePrivateKey());
  ledger.fund(wallet.address, 10_000_000n);
  return wallet;
}

const transfersFrom = (wallet: PrivateKeyAccount) => ledger.transfers.filter((transfer) => transfer.from === wallet.address);

function visit(shortUrl: string): Promise<Response> {
  return fetch(shortUrl, { redirect: "manual" });
}

function api(method: string, path: string, token: string, body?: unknown): Promise<Response> {
  return fetch(`${app.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

const freshHostname = () => `go.mcp-server-${randomString("abcdefghijkmnpqrstuvwxyz23456789", 10)}.com`;

/** The MPP challenge of buy_link's payment-required result, paid by mppx's own evm client method: the credential as _meta carries it. */
async function mppCredentialFor(
  client: Client,
  wallet: PrivateKeyAccount,
  args: Record<string, unknown>,
): Promise<Credential.Credential> {
  const required = await callTool(client, "buy_link", args);
  const { challenges } = required._meta![Mcp.paymentRequiredMetaKey] as { challenges: Challenge.Challenge[] };
  const [method] = evm({ account: wallet, authorization: TOKEN });
  const challenge = challenges[0] as Parameters<typeof method.createCredential>[0]["challenge"];
  return Credential.deserialize(await method.createCredential({ challenge, context: {} }));
}

/** The _meta of a paid retry: an MPP credential from mppx's evm method, or an x402 payload from x402's client. */
async function paymentFor(
  protocol: "mpp" | "x402",
  client: Client,
  wallet: PrivateKeyAccount,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  if (protocol === "mpp") return { [Mcp.credentialMetaKey]: await mppCredentialFor(client, wallet, args) };
  const required = paymentRequiredOf(await callTool(client, "buy_link", args))!;
  return { [X402_PAYMENT]: await x402McpAgent(client, wallet).pay(required) };
}

function buyOverHttp(body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(`${app.url}/api/links`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

describe("the MCP server on the running app, through the SDK's Client over Streamable HTTP", () => {
  it(
    "lists the tools with the HTTP API's schemas, portable under the MCP Inspector's --strict check",
    async () => {
      const { tools } = await (await connect()).listTools();
      const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));

      expect(Object.keys(byName).sort()).toEqual([
        "archive_link",
        "bulk_create_links",
        "buy_link",
        "create_link",
        "get_account",
        "get_analytics",
        "get_import",
        "get_link",
        "get_link_history",
        "get_qr",
        "list_domains",
        "list_links",
        "list_tags",
        "list_webhooks",
        "repoint_link",
        "restore_link",
        "schedule_repoint",
        "set_domain_destinations",
        "set_link_password",
        "set_link_preview",
        "set_link_rules",
        "set_scan_limit",
        "start_import",
      ]);
      expect(byName.get_analytics!.inputSchema).toEqual(toolSchema(analyticsQuery, "input"));
      expect(byName.get_analytics!.outputSchema).toEqual(toolSchema(analyticsSchema, "output"));
      expect(byName.create_link!.inputSchema).toEqual(toolSchema(createLinkBody, "input"));
      expect(byName.get_link!.outputSchema).toEqual(toolSchema(linkSchema, "output"));
      expect(byName.list_links!.outputSchema).toEqual(toolSchema(linkListSchema, "output"));
      expect(byName.get_account!.outputSchema).toEqual(toolSchema(accountSchema, "output"));
      expect(byName.list_domains!.outputSchema).toEqual(toolSchema(domainListSchema, "output"));
      expect(byName.buy_link!.outputSchema).toEqual(toolSchema(paidLinkSchema, "output"));
      expect(portabilityFindings(tools)).toEqual([]);
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "creates, lists, reads, repoints (visible on the next visit), archives (still resolves), draws " +
      "the QR code, counts the scans and describes the account",
    async () => {
      const { token } = await newUser("mcp-server");
      const client = await connect({ token });
      const destination = freshDestination();

      const link = (await callTool(client, "create_link", { destination })).structuredContent as {
        id: string;
        short_url: string;
      };
      expect((await visit(link.short_url)).headers.get("location")).toBe(destination);
      const listed = (await callTool(client, "list_links")).structuredContent as { links: { id: string }[] };
      expect(listed.links.map((item) => item.id)).toContain(link.id);
      expect((await callTool(client, "get_link", { id: link.id })).structuredContent).toEqual(link);

      await callTool(client, "repoint_link", { id: link.id, destination: `${destination}/new` });
      expect((await visit(link.short_url)).headers.get("location")).toBe(`${destination}/new`);

      const archived = await callTool(client, "archive_link", { id: link.id });
      expect(archived.structuredContent).toMatchObject({ archived_at: expect.any(Number) });
      const afterArchive = await visit(link.short_url);
      expect(afterArchive.status).toBe(302);
      expect(afterArchive.headers.get("location")).toBe(`${destination}/new`);

      const qr = await callTool(client, "get_qr", { id: link.id, format: "png", size: 512 });
      const image = qr.content[0] as { type: string; data: string; mimeType: string };
      expect(image).toMatchObject({ type: "image", mimeType: "image/png" });
      expect(await decodeQr(Buffer.from(image.data, "base64"))).toBe(`${link.short_url}?qr`);

      // The visits above came from Node's fetch, a bot to the counter; these two are a person's, one through the QR code.
      const browser = {
        "user-agent":
          "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
      };
      await fetch(`${link.short_url}?qr`, { redirect: "manual", headers: browser });
      await fetch(link.short_url, { redirect: "manual", headers: browser });
      const bySource = async () =>
        (await callTool(client, "get_analytics", { link_id: link.id, group_by: "source" })).structuredContent as {
          total: { scans: number };
          data: { key: string; scans: number }[];
        };
      await expect.poll(async () => (await bySource()).total.scans, { timeout: 20_000, interval: 500 }).toBe(2);
      expect((await bySource()).data).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ key: "qr", scans: 1 }),
          expect.objectContaining({ key: "link", scans: 1 }),
        ]),
      );
      const csv = await callTool(client, "get_analytics", { link_id: link.id, group_by: "source", format: "csv" });
      expect(textOf(csv)).toMatch(/^"key","scans","uniques"\r\n/);

      const account = await callTool(client, "get_account");
      expect(account.structuredContent).toMatchObject({ plan: "unlimited", active: true, can: { create_links: true } });
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "lists the workspace's custom domains, a verified one's links resolving on its host, and no other workspace's",
    async () => {
      const [owner, stranger] = await Promise.all([newUser("mcp-server-domains"), newUser("mcp-server-domains-stranger")]);
      const hostname = freshHostname();
      const added = await (await api("POST", "/api/domains", owner.token, { hostname })).json();
      // The records the domain asks for: the ownership TXT and the CNAME to the short host.
      const [ownership, routing] = added.dns as { type: string; name: string; value: string }[];
      dns.set(ownership!.name, { txt: [ownership!.value] });
      dns.set(routing!.name, { cname: routing!.value });
      expect(await (await api("POST", `/api/domains/${added.id}/verify`, owner.token)).json()).toMatchObject({
        verified: true,
        validation_errors: [],
      });
      const client = await connect({ token: owner.token });

      const listed = await callTool(client, "list_domains");

      expect(listed.isError).toBeFalsy();
      expect(listed.structuredContent).toEqual({
        domains: [expect.objectContaining({ id: added.id, hostname, verified: true, hostname_status: "active" })],
      });
      expect(listed.structuredContent).toEqual(await (await api("GET", "/api/domains", owner.token)).json());
      const destination = freshDestination();
      const link = (await callTool(client, "create_link", { destination, domain_id: added.id })).structuredContent as {
        slug: string;
        short_url: string;
      };
      expect(link.short_url).toBe(`https://${hostname}/${link.slug}`);
      expect((await rawRequest(app.url, `/${link.slug}`, { host: hostname })).headers.location).toBe(destination);
      const theirs = (await callTool(await connect({ token: stranger.token }), "list_domains")).structuredContent as {
        domains: unknown[];
      };
      expect(theirs).toEqual({ domains: [] });
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "gives another workspace's link and domain ids the same not-found answer as the HTTP API, through every tool that takes one",
    async () => {
      const [owner, stranger] = await Promise.all([newUser("mcp-server-owner"), newUser("mcp-server-stranger")]);
      const strangerClient = await connect({ token: stranger.token });
      const theirs = {
        link: (
          (await callTool(strangerClient, "create_link", { destination: freshDestination() })).structuredContent as { id: string }
        ).id,
        domain: (await (await api("POST", "/api/domains", stranger.token, { hostname: freshHostname() })).json()).id as string,
      };
      const client = await connect({ token: owner.token });
      const http = {
        link: await api("GET", `/api/links/${theirs.link}`, owner.token),
        domain: await api("GET", `/api/domains/${theirs.domain}`, owner.token),
        domainId: await api("POST", "/api/links", owner.token, { destination: freshDestination(), domain_id: theirs.domain }),
      };
      expect([http.link.status, http.domain.status, http.domainId.status]).toEqual([404, 404, 404]);
      const notFound = {
        link: (await http.link.json()).error,
        domain: (await http.domain.json()).error,
        domain_id: (await http.domainId.json()).error,
      };

      for (const { name, args, names } of accountToolCalls(theirs, freshDestination).filter((entry) => entry.names !== null)) {
        const result = await callTool(client, name, args);
        expect(result.isError, name).toBe(true);
        expect(textOf(result), name).toBe(notFound[names!]);
      }
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "lets a viewer read the workspace's links but not create one, with the HTTP API's sentence",
    async () => {
      const [owner, viewer] = await Promise.all([newUser("mcp-server-team"), newUser("mcp-server-viewer")]);
      const caller = await joinWorkspace(viewer, owner.workspaceId, "viewer");
      const client = await connect(caller);
      const body = { destination: freshDestination() };

      const refused = await callTool(client, "create_link", body);
      const http = await fetch(`${app.url}/api/links`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${viewer.token}`,
          "x-workspace-id": owner.workspaceId,
          "content-type": "application/json",
        },
        body: JSON.stringify(body),
      });

      expect(http.status).toBe(403);
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe((await http.json()).error);
      expect((await callTool(client, "list_links")).isError).toBeFalsy();
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "refuses a credential that is present but invalid with 401 and WWW-Authenticate",
    async () => {
      const response = await fetch(`${app.url}/api/mcp`, {
        method: "POST",
        headers: {
          authorization: "Bearer pl_wrong",
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer /);
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "is stateless: no session id, and no server-to-client stream (GET answers 405)",
    async () => {
      const response = await fetch(`${app.url}/api/mcp`, {
        method: "POST",
        headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("mcp-session-id")).toBeNull();
      expect((await response.json()).result.serverInfo.name).toBe("permalink");
      expect((await fetch(`${app.url}/api/mcp`, { headers: { accept: "text/event-stream" } })).status).toBe(405);
    },
    REQUEST_TIMEOUT_MS,
  );
});

describe("buy_link on the running app", () => {
  it(
    "is paid by mppx's MCP client; the first purchase's API key then works as the MCP server's Bearer credential",
    async () => {
      const wallet = newWallet();
      const agent = mppMcpAgent(await connect(), wallet, TOKEN);
      const destination = freshDestination();

      const bought = await agent.callTool({ name: "buy_link", arguments: { destination } });

      expect(bought.isError).toBeFalsy();
      const paid = bought.structuredContent as { id: string; short_url: string; api_key: string; receipt: string };
      expect(paid).toMatchObject({
        destination,
        status: 1,
        api_key: expect.stringMatching(/_/),
        receipt: transfersFrom(wallet)[0]!.transaction,
      });
      expect(bought.receipt).toMatchObject({ status: "success", method: "evm", reference: paid.receipt });
      expect(transfersFrom(wallet)).toHaveLength(1);
      expect((await visit(paid.short_url)).headers.get("location")).toBe(destination);

      const owner = await connect({ token: paid.api_key });
      const listed = (await callTool(owner, "list_links")).structuredContent as { links: { id: string }[] };
      expect(listed.links.map((link) => link.id)).toEqual([paid.id]);
      const repointed = await callTool(owner, "repoint_link", { id: paid.id, destination: `${destination}/again` });
      expect(repointed.isError).toBeFalsy();
      expect((await visit(paid.short_url)).headers.get("location")).toBe(`${destination}/again`);
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "is paid by an x402 MCP client, the settlement in _meta; a replay over MCP or over HTTP buys nothing more",
    async () => {
      const wallet = newWallet();
      const client = await connect();
      const agent = x402McpAgent(client, wallet);
      const args = { destination: freshDestination() };

      const { result, payment } = await agent.callTool("buy_link", args);

      expect(result.isError).toBeFalsy();
      const paid = result.structuredContent as { id: string; api_key?: string };
      expect(paid.api_key).toBeTruthy();
      expect(result._meta?.[X402_PAYMENT_RESPONSE]).toMatchObject({ success: true, network: NETWORK, payer: wallet.address });

      const againOverMcp = await callTool(client, "buy_link", args, { [X402_PAYMENT]: payment });
      const againOverHttp = await buyOverHttp(args, {
        "payment-signature": Buffer.from(JSON.stringify(payment)).toString("base64"),
      });
      expect((againOverMcp.structuredContent as { id: string }).id).toBe(paid.id);
      expect(againOverHttp.status).toBe(201);
      expect((await againOverHttp.json()).id).toBe(paid.id);
      expect(transfersFrom(wallet)).toHaveLength(1);
      expect(facilitator.calls.settle).toBeGreaterThan(0);
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "settles one MPP credential once when it is sent at once over MCP and over HTTP",
    async () => {
      const wallet = newWallet();
      const client = await connect();
      const args = { destination: freshDestination() };
      const credential = await mppCredentialFor(client, wallet, args);

      const [first, second, overHttp] = await Promise.all([
        callTool(client, "buy_link", args, { [Mcp.credentialMetaKey]: credential }),
        callTool(await connect(), "buy_link", args, { [Mcp.credentialMetaKey]: credential }),
        buyOverHttp(args, { authorization: Credential.serialize(credential) }),
      ]);

      const ids = [first.structuredContent, second.structuredContent, await overHttp.json()].map(
        (body) => (body as { id: string }).id,
      );
      expect(new Set(ids).size).toBe(1);
      expect(transfersFrom(wallet)).toHaveLength(1);
    },
    REQUEST_TIMEOUT_MS,
  );

  it.each(["mpp", "x402"] as const)(
    "refuses a %s credential made for another destination before anything settles",
    async (protocol) => {
      const wallet = newWallet();
      const client = await connect();
      const meta = await paymentFor(protocol, client, wallet, { destination: freshDestination() });
      const settlements = facilitator.calls.settle;

      const refused = await callTool(client, "buy_link", { destination: freshDestination() }, meta);

      expect(refused.isError).toBe(true);
      expect(JSON.parse((refused.content[1] as { text: string }).text).error).toMatch(/another destination/);
      expect(paymentRequiredOf(refused)).toMatchObject({ x402Version: 2 });
      expect(refused._meta?.[Mcp.paymentRequiredMetaKey]).toMatchObject({
        httpStatus: 402,
        challenges: [expect.objectContaining({ method: "evm", intent: "charge" })],
      });
      expect(facilitator.calls.settle).toBe(settlements);
      expect(transfersFrom(wallet)).toEqual([]);
    },
    REQUEST_TIMEOUT_MS,
  );

  it(
    "runs the HTTP purchase's checks before any challenge: an invalid body (400), a taken slug (409) " +
      "and a refused destination (422) get no payment request",
    async () => {
      const { token } = await newUser("mcp-server-slug-holder");
      const taken = (
        (
          await callTool(await connect({ token }), "create_link", {
            destination: freshDestination(),
            slug: `taken-${randomString(SLUG_ALPHABET, 8)}`,
          })
        ).structuredContent as { slug: string }
      ).slug;
      const client = await connect();

      for (const [status, args] of [
        [400, { destination: "not a url" }],
        [400, { destination: freshDestination(), domain_id: "dom_0123456789abcdef" }],
        [409, { destination: freshDestination(), slug: taken }],
        [422, { destination: "http://169.254.169.254/latest/meta-data" }],
      ] as const) {
        const refused = await callTool(client, "buy_link", args);
        const http = await buyOverHttp(args, {});

        expect(http.status, JSON.stringify(args)).toBe(status);
        expect(refused.isError, JSON.stringify(args)).toBe(true);
        expect(refused._meta?.[Mcp.paymentRequiredMetaKey], JSON.stringify(args)).toBeUndefined();
        expect(paymentRequiredOf(refused), JSON.stringify(args)).toBeNull();
        expect(textOf(refused), JSON.stringify(args)).toBe((await http.json()).error);
      }
    },
    REQUEST_TIMEOUT_MS,
  );
});
