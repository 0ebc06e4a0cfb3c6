import { type Browser, type Page } from "@playwright/test";
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { freePort } from "../server/app-process";
import { expect, test } from "./support/fixtures";
import { baseUrl, subscribedSession } from "./support/helpers";
import { Callback } from "./support/oauth";

/**
 * The MCP Inspector's own CLI (`@modelcontextprotocol/inspector`, a devDependency) against the
 * protected MCP server as `npm start` serves it. First with a token this test gets through the
 * real flow (registration, PKCE, the consent page in Chromium, the token endpoint) and hands the
 * CLI as `--header "Authorization: Bearer …"`: `tools/list --strict` finds no portability problem,
 * `tools/call` creates and lists a link; without it, the account tool is refused and the 401 names
 * the resource metadata. Then the CLI runs OAuth itself (discovery, registration, PKCE, its own
 * loopback callback), the person allowing it on the same consent page.
 */
test.describe.configure({ mode: "serial", timeout: 180_000 });

const PERSON = "inspector-agent@permalink.test";
const INSPECTOR = path.resolve("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");

let browser: Browser;
let page: Page;
let consoleErrors: string[];
let home: string;
const callback = new Callback();

test.beforeAll(async () => {
  ({ browser, page, consoleErrors } = await subscribedSession(PERSON));
  await callback.start();
  // The CLI keeps its catalog and OAuth state under the home directory: this run's own.
  home = await mkdtemp(path.join(tmpdir(), "permalink-inspector-"));
});

test.afterAll(async () => {
  await callback.stop();
  await browser.close();
  await rm(home, { recursive: true, force: true });
});
/** The CLI closes its callback listener once it has the code, so the browser's request for that page's icon may be refused. */
let cliCallbackOrigin = "";
test.afterEach(() =>
  expect(consoleErrors.filter((line) => !cliCallbackOrigin || !line.includes(`${cliCallbackOrigin}/favicon.ico`))).toEqual([]),
);

type Run = { code: number | null; stdout: string; stderr: string };
type Inspector = ChildProcessByStdio<null, Readable, Readable>;

/** The Inspector's CLI as a child process, on the project's Node (its own bin needs Node 22 or later). */
function startInspector(args: readonly string[], env: Record<string, string> = {}): { child: Inspector; done: Promise<Run> } {
  const child: Inspector = spawn(path.resolve("node_modules/.bin/node"), [INSPECTOR, "--cli", `${baseUrl()}/api/mcp`, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    // Its secrets (the OAuth tokens it obtains) in a file under that home: there is no keychain here.
    env: {
      NODE_ENV: "production",
      PATH: process.env.PATH,
      HOME: home,
      NO_COLOR: "1",
      MCP_INSPECTOR_SECRET_STORE: "file",
      ...env,
    },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<Run>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

const inspector = (...args: string[]) => startInspector(["--transport", "http", ...args]).done;

/** The answer of `--format json`: one envelope on stdout. */
function envelope(run: Run): { result: Record<string, unknown>; schemaFindings?: unknown[] } {
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  return JSON.parse(run.stdout.trim());
}

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content: { type: string; text?: string }[] };

/** A token as an agent platform gets one: registration, PKCE, the person's Allow on the consent page, the code exchanged. */
async function tokenThroughConsent(): Promise<string> {
  const registered = await fetch(`${baseUrl()}/api/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Inspector test agent", redirect_uris: [callback.url] }),
  });
  expect(registered.status).toBe(201);
  const { client_id } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString("base64url");
  const authorization = new URL(`${baseUrl()}/api/oauth/authorize`);
  for (const [name, value] of Object.entries({
    response_type: "code",
    client_id,
    redirect_uri: callback.url,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    scope: "links:read links:write",
    state: "inspector",
    resource: `${baseUrl()}/api/mcp`,
  }))
    authorization.searchParams.set(name, value);
  const answered = callback.next();
  await page.goto(authorization.toString());
  await expect(page.getByText("Inspector test agent", { exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Allow" }).click();
  const query = await answered;
  expect(query.get("state")).toBe("inspector");
  const tokens = await fetch(`${baseUrl()}/api/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: query.get("code")!,
      code_verifier: verifier,
      client_id,
      redirect_uri: callback.url,
      resource: `${baseUrl()}/api/mcp`,
    }),
  });
  expect(tokens.status).toBe(200);
  return ((await tokens.json()) as { access_token: string }).access_token;
}

test("the Inspector's CLI with a bearer token: tools/list --strict finds nothing, tools/call creates and lists; without it, the 401", async () => {
  const token = await tokenThroughConsent();
  const bearer = ["--header", `Authorization: Bearer ${token}`];

  const listed = envelope(await inspector("--method", "tools/list", "--strict", "--format", "json", ...bearer));
  expect(listed.schemaFindings).toBeUndefined();
  const tools = (listed.result.tools as { name: string }[]).map((tool) => tool.name);
  expect(tools).toEqual(expect.arrayContaining(["create_link", "list_links", "buy_link", "get_qr"]));

  const created = envelope(
    await inspector(
      "--method",
      "tools/call",
      "--tool-name",
      "create_link",
      "--tool-arg",
      "destination=https://example.com/inspector-cli",
      "--format",
      "json",
      ...bearer,
    ),
  ).result as ToolResult;
  expect(created.isError ?? false, JSON.stringify(created.content)).toBe(false);
  const link = created.structuredContent as { id: string; destination: string };
  expect(link.destination).toBe("https://example.com/inspector-cli");

  const links = envelope(await inspector("--method", "tools/call", "--tool-name", "list_links", "--format", "json", ...bearer))
    .result as ToolResult;
  expect(links.isError ?? false).toBe(false);
  expect((links.structuredContent as { links: { id: string }[] }).links.map((item) => item.id)).toContain(link.id);

  // Without a token: the tools are listed, an account tool is refused, and never with an interactive login here.
  const anonymousList = envelope(await inspector("--method", "tools/list", "--strict", "--format", "json", "--stored-auth-only"));
  expect(anonymousList.schemaFindings).toBeUndefined();
  const refused = await inspector("--method", "tools/call", "--tool-name", "list_links", "--stored-auth-only");
  // Exit 3 is the CLI's AUTH_REQUIRED (clients/cli: EXIT_CODES); its message carries the server's sentence.
  expect(refused.code, refused.stdout + refused.stderr).toBe(3);
  expect(refused.stdout + refused.stderr).toMatch(/auth_required/);
  expect(refused.stdout + refused.stderr).toMatch(/This tool needs an account: connect with OAuth/);
  const challenge = await fetch(`${baseUrl()}/api/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_links", arguments: {} } }),
  });
  expect(challenge.status).toBe(401);
  expect(challenge.headers.get("www-authenticate")).toMatch(
    new RegExp(`^Bearer .*resource_metadata="${baseUrl()}/\\.well-known/oauth-protected-resource/api/mcp"`),
  );
});

test("the Inspector's CLI connects with OAuth itself: discovery, registration, PKCE and its own callback, through the consent page", async () => {
  const callbackUrl = `http://127.0.0.1:${await freePort()}/oauth/callback`;
  cliCallbackOrigin = new URL(callbackUrl).origin;
  // MCP_AUTO_OPEN_ENABLED lets the CLI run its interactive login without a terminal: it prints the
  // address to open (it cannot open a browser here) and waits on its loopback callback.
  const login = startInspector(
    [
      "--transport",
      "http",
      "--method",
      "tools/call",
      "--tool-name",
      "list_links",
      "--format",
      "json",
      "--callback-url",
      callbackUrl,
    ],
    { MCP_AUTO_OPEN_ENABLED: "true" },
  );
  let stderr = "";
  const address = await new Promise<string>((resolve, reject) => {
    login.child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /Please navigate to: (\S+)/.exec(stderr);
      if (found) resolve(found[1]!);
    });
    void login.done.then((run) => reject(new Error(`The CLI ended before asking for a login: ${run.stdout}\n${run.stderr}`)));
  });
  const authorization = new URL(address);
  expect(authorization.origin + authorization.pathname).toBe(`${baseUrl()}/api/oauth/authorize`);
  expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorization.searchParams.get("redirect_uri")).toBe(callbackUrl);

  await page.goto(address);
  await expect(page).toHaveURL(/\/connect\/oau_/);
  await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForURL((url) => url.href.startsWith(callbackUrl));

  const listed = envelope(await login.done).result as ToolResult;
  expect(listed.isError ?? false, JSON.stringify(listed.content)).toBe(false);
  expect((listed.structuredContent as { links: { destination: string }[] }).links.map((item) => item.destination)).toContain(
    "https://example.com/inspector-cli",
  );

  // The token it stored is used on the next run, with no login.
  const again = envelope(
    await inspector("--method", "tools/call", "--tool-name", "list_links", "--format", "json", "--stored-auth-only"),
  ).result as ToolResult;
  expect(again.isError ?? false).toBe(false);

  // The connection is one the person sees among connected apps.
  await page.goto("/dashboard/apps");
  await expect(page.getByRole("main").getByText(PERSON, { exact: true }).first()).toBeVisible();
});
