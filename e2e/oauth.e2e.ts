import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type Browser, type Page } from "@playwright/test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { expect, test } from "./support/fixtures";
import { baseUrl, capturePage, subscribedSession } from "./support/helpers";

/**
 * An agent platform's flow end to end, with the MCP SDK's own client and its OAuth client
 * provider: the 401 from the MCP server, discovery (RFC 9728, RFC 8414), registration (RFC 7591),
 * the consent page in Chromium, the code exchanged with PKCE, create_link, a refresh when the
 * access token has expired, and the refusal once the app is disconnected in the dashboard.
 */
test.describe.configure({ mode: "serial", timeout: 180_000 });

const PERSON = "oauth-agent@permalink.test";

/** The app's side of the redirect: a loopback server that keeps the code it is sent. */
class Callback {
  private server: Server | undefined;
  private waiting: ((query: URLSearchParams) => void) | undefined;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const query = new URL(request.url ?? "/", "http://127.0.0.1").searchParams;
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end("<!doctype html><title>Connected</title><p>You can close this window.</p>");
      this.waiting?.(query);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callback`;
  }

  next(): Promise<URLSearchParams> {
    return new Promise((resolve) => (this.waiting = resolve));
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The SDK's OAuthClientProvider, kept in memory as an agent platform keeps it per connection. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;

  constructor(private readonly callback: string) {}

  get redirectUrl() {
    return this.callback;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "E2E agent <script>alert(1)</script>",
      redirect_uris: [this.callback],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  clientInformation() {
    return this.client;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.client = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  /** What the SDK drops when the server refuses them (a revoked grant's refresh token: invalid_grant). */
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "client") this.client = undefined;
  }
}

let browser: Browser;
let page: Page;
let consoleErrors: string[];
const callback = new Callback();
let provider: MemoryProvider;

test.beforeAll(async () => {
  ({ browser, page, consoleErrors } = await subscribedSession(PERSON));
  await callback.start();
  provider = new MemoryProvider(callback.url);
});

test.afterAll(async () => {
  await callback.stop();
  await browser.close();
});
test.afterEach(() => expect(consoleErrors).toEqual([]));

async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl()}/api/mcp`), { authProvider: provider });
  const client = new Client({ name: "e2e-agent", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

async function createLink(client: Client, destination: string): Promise<CallToolResult> {
  return (await client.callTool({ name: "create_link", arguments: { destination } })) as CallToolResult;
}

async function database<Result>(work: (client: pg.Client) => Promise<Result>): Promise<Result> {
  const client = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

test("an MCP client connects with OAuth through the consent page, creates a link, refreshes, and is refused once disconnected", async ({}, testInfo) => {
  // Anonymous: the tools are listed, an account tool answers the challenge, and the SDK starts OAuth.
  const anonymous = await connect();
  expect((await anonymous.client.listTools()).tools.map((tool) => tool.name)).toContain("create_link");
  await expect(createLink(anonymous.client, "https://example.com/before")).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.client?.client_id).toMatch(/^ocl_/);
  const authorization = provider.authorizationUrl!;
  expect(authorization.origin + authorization.pathname).toBe(`${baseUrl()}/api/oauth/authorize`);
  expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorization.searchParams.get("resource")).toBe(`${baseUrl()}/api/mcp`);

  // The person decides in the browser: the app's name as text, never markup.
  const answered = callback.next();
  await page.goto(authorization.toString());
  await expect(page).toHaveURL(/\/connect\/oau_/);
  await expect(page.getByRole("heading", { name: "Connect an app" })).toBeVisible();
  await expect(page.getByText("E2E agent <script>alert(1)</script>", { exact: true })).toBeVisible();
  await expect(page.getByLabel(/Create links, change where they point/)).toBeChecked();
  await capturePage(page, testInfo, "oauth-consent");
  await page.getByRole("button", { name: "Allow" }).click();
  const query = await answered;
  expect(query.get("iss")).toBe(baseUrl());
  await anonymous.transport.finishAuth(query.get("code")!);
  await anonymous.client.close();

  // Connected: create_link acts on the person's workspace.
  const { client } = await connect();
  const created = await createLink(client, "https://example.com/connected-agent");
  expect(created.isError ?? false, JSON.stringify(created.content)).toBe(false);
  const link = created.structuredContent as { id: string; slug: string };
  await page.goto("/dashboard");
  await expect(page.getByTitle("https://example.com/connected-agent").filter({ visible: true })).toBeVisible();

  // The access token has expired: the next call is a 401, the SDK refreshes (a new refresh token) and the call goes through.
  const firstRefresh = provider.saved!.refresh_token;
  await database((db) => db.query(`UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE kind = 'access'`));
  const listed = (await client.callTool({ name: "get_link", arguments: { id: link.id } })) as CallToolResult;
  expect(listed.isError ?? false, JSON.stringify(listed.content)).toBe(false);
  expect(provider.saved!.refresh_token).not.toBe(firstRefresh);

  // Connected apps: the app, who connected it, what it may do; Disconnect ends it at once.
  await page.goto("/dashboard/apps");
  await expect(page.getByRole("heading", { name: "E2E agent <script>alert(1)</script>" })).toBeVisible();
  await expect(page.getByRole("main").getByText(PERSON, { exact: true })).toBeVisible();
  await capturePage(page, testInfo, "connected-apps");
  await page.getByRole("button", { name: /Disconnect/ }).click();
  await expect(page.getByText("No apps are connected to this workspace.")).toBeVisible();
  // Refused: the token is dead, the refresh token too, so the SDK can only start a new authorization.
  provider.authorizationUrl = undefined;
  await expect(createLink(client, "https://example.com/after")).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).toBeDefined();
  await client.close();
});
