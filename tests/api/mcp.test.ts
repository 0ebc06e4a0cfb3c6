import { accountSchema } from "@/lib/billing/schemas";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { newId, randomString } from "@/lib/db/random";
import { domainListSchema } from "@/lib/domains/schemas";
import { resetWriteLimiter } from "@/lib/http/write-limit";
import { createLinkBody, linkListSchema, linkSchema, listLinksQuery, paidLinkSchema, updateLinkBody } from "@/lib/links/schemas";
import { AUTHENTICATE_MESSAGE, toolSchema } from "@/lib/mcp/tool";
import { TOOLS } from "@/lib/mcp/toolset";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ORIGIN, call, dispatch, joinWorkspace, newUser, type TestUser } from "../support/api";
import { accountToolCalls, connectMcp, textOf } from "../support/mcp";
import { portabilityFindings } from "../support/schema-portability";

const appFetch: typeof fetch = (input, init) => dispatch(new Request(input, init));

const connect = (options: { token?: string; headers?: Record<string, string> } = {}) =>
  connectMcp(APP_ORIGIN, { ...options, fetch: appFetch });

let destinationCounter = 0;
const freshDestination = () => `https://example.com/mcp/${++destinationCounter}`;
const freshHostname = () => `go.mcp-${randomString("abcdefghijkmnpqrstuvwxyz23456789", 10)}.com`;

async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function mcpRequest(headers: Record<string, string>, message: unknown = { jsonrpc: "2.0", id: 1, method: "tools/list" }) {
  return call("POST", "/api/mcp", { body: message, headers: { accept: "application/json, text/event-stream", ...headers } });
}

let owner: TestUser;
let ownerClient: Client;

beforeAll(async () => {
  owner = await newUser("mcp-owner");
  ownerClient = await connect({ token: owner.token });
});

afterAll(async () => {
  await ownerClient?.close();
});

describe("the MCP server's tools", () => {
  it("lists every tool with input and output schemas converted from the HTTP API's zod schemas", async () => {
    const anonymous = await connect();
    const { tools } = await anonymous.listTools();
    await anonymous.close();

    expect(tools.map((tool) => tool.name)).toEqual([
      "create_link",
      "list_links",
      "get_link",
      "get_link_history",
      "repoint_link",
      "set_link_rules",
      "schedule_repoint",
      "set_link_password",
      "set_scan_limit",
      "set_link_preview",
      "bulk_create_links",
      "archive_link",
      "restore_link",
      "get_qr",
      "get_analytics",
      "list_domains",
      "set_domain_destinations",
      "list_webhooks",
      "list_tags",
      "start_import",
      "get_import",
      "get_account",
      "buy_link",
    ]);
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.create_link!.inputSchema).toEqual(toolSchema(createLinkBody, "input"));
    expect(byName.create_link!.inputSchema).toMatchObject({
      type: "object",
      required: ["destination"],
      additionalProperties: false,
    });
    expect(byName.create_link!.outputSchema).toEqual(toolSchema(linkSchema, "output"));
    expect(byName.list_links!.inputSchema).toEqual(toolSchema(listLinksQuery, "input"));
    expect(byName.list_links!.outputSchema).toEqual(toolSchema(linkListSchema, "output"));
    expect(byName.get_account!.outputSchema).toEqual(toolSchema(accountSchema, "output"));
    expect(byName.list_domains!.inputSchema).toEqual({ type: "object", properties: {}, additionalProperties: false });
    expect(byName.list_domains!.outputSchema).toEqual(toolSchema(domainListSchema, "output"));
    expect(byName.buy_link!.inputSchema).toEqual(toolSchema(createLinkBody, "input"));
    expect(byName.buy_link!.outputSchema).toEqual(toolSchema(paidLinkSchema, "output"));
    expect(byName.repoint_link!.inputSchema).toMatchObject({ required: ["id", "destination"] });
    const patchFields = toolSchema(updateLinkBody, "input").properties as Record<string, unknown>;
    for (const [tool, field] of [
      ["set_link_rules", "rules"],
      ["schedule_repoint", "schedule"],
      ["set_link_password", "password"],
      ["set_scan_limit", "scan_limit"],
      ["set_link_preview", "preview"],
    ] as const) {
      expect(byName[tool]!.inputSchema, tool).toMatchObject({ required: ["id", field], additionalProperties: false });
      expect(Object.keys(byName[tool]!.inputSchema.properties!), tool).toEqual(["id", field]);
      expect(byName[tool]!.inputSchema.properties![field], tool).toEqual(patchFields[field]);
    }
    expect(byName.get_qr!.outputSchema).toBeUndefined();
    for (const tool of tools) expect(tool.description!.length, tool.name).toBeGreaterThan(40);
  });

  it("lists schemas the MCP Inspector's --strict check finds nothing in: nullable fields as anyOf with a null branch", async () => {
    const anonymous = await connect();
    const { tools } = await anonymous.listTools();
    await anonymous.close();

    expect(portabilityFindings(tools)).toEqual([]);
    expect(tools.find((tool) => tool.name === "get_link")!.outputSchema!.properties!.title).toEqual({
      anyOf: [{ type: "string" }, { type: "null" }],
    });
  });

  it("takes each tool's title and read-only hint from the operation it is a door to", async () => {
    const anonymous = await connect();
    const { tools } = await anonymous.listTools();
    await anonymous.close();

    for (const tool of TOOLS) {
      const listed = tools.find((entry) => entry.name === tool.name)!;
      if (tool.name !== "buy_link") expect(listed.title, tool.name).toBe(tool.operation.summary);
      expect(listed.annotations!.readOnlyHint, tool.name).toBe(tool.operation.method === "get");
    }
  });

  it("creates, lists, reads, repoints and archives through the tools, answering what the HTTP API answers", async () => {
    const destination = freshDestination();
    const created = await callTool(ownerClient, "create_link", { destination });
    expect(created.isError).toBeFalsy();
    const link = created.structuredContent as { id: string; slug: string; short_url: string };
    expect(JSON.parse(textOf(created))).toEqual(link);
    expect((await call("GET", `/api/links/${link.id}`, { token: owner.token })).body).toEqual(link);

    const listed = await callTool(ownerClient, "list_links", { limit: 5 });
    expect(listed.structuredContent).toEqual((await call("GET", "/api/links?limit=5", { token: owner.token })).body);

    const read = await callTool(ownerClient, "get_link", { id: link.id });
    expect(read.structuredContent).toEqual(link);

    const repointed = await callTool(ownerClient, "repoint_link", { id: link.id, destination: `${destination}/moved` });
    expect(repointed.structuredContent).toMatchObject({
      id: link.id,
      slug: link.slug,
      destination: `${destination}/moved`,
      status: 1,
    });

    const archived = await callTool(ownerClient, "archive_link", { id: link.id });
    expect(archived.structuredContent).toMatchObject({ id: link.id, archived_at: expect.any(Number) });
    const afterArchive = await callTool(ownerClient, "list_links");
    expect((afterArchive.structuredContent as { links: { id: string }[] }).links.map((item) => item.id)).not.toContain(link.id);
  });

  it("sets routing rules and scheduled repoints and lists webhooks, answering what the HTTP API answers", async () => {
    const link = (await callTool(ownerClient, "create_link", { destination: freshDestination() })).structuredContent as {
      id: string;
    };
    const rules = [{ when: { country: ["au"], device: ["mobile"] }, destination: "https://example.com/au-mobile" }];
    const routed = await callTool(ownerClient, "set_link_rules", { id: link.id, rules });
    expect(routed.isError, textOf(routed)).toBeFalsy();
    expect(routed.structuredContent).toMatchObject({
      id: link.id,
      status: 1,
      rules: [{ when: { country: ["AU"], device: ["mobile"] }, destination: "https://example.com/au-mobile" }],
    });
    const at = Date.now() + 86_400_000;
    const scheduled = await callTool(ownerClient, "schedule_repoint", {
      id: link.id,
      schedule: [{ at, destination: "https://example.com/next-year" }],
    });
    expect(scheduled.structuredContent).toMatchObject({ schedule: [{ at, destination: "https://example.com/next-year" }] });
    expect((await call("GET", `/api/links/${link.id}`, { token: owner.token })).body).toEqual(scheduled.structuredContent);
    const past = await callTool(ownerClient, "schedule_repoint", {
      id: link.id,
      schedule: [{ at: 1, destination: "https://example.com/x" }],
    });
    expect(past.isError).toBe(true);
    expect(textOf(past)).toMatch(/schedule\[0\]\.at must be in the future/);
    const missing = await callTool(ownerClient, "set_link_rules", { id: link.id });
    expect(missing.isError).toBe(true);

    // Each is a door to its own field of PATCH /api/links/{id}: the others are refused, and nothing changes.
    const before = (await call("GET", `/api/links/${link.id}`, { token: owner.token })).body;
    for (const [tool, args] of [
      ["set_link_rules", { rules: [], destination: "https://example.com/elsewhere" }],
      ["schedule_repoint", { schedule: [], title: "renamed" }],
      ["schedule_repoint", { schedule: [], rules: [] }],
    ] as const) {
      const refused = await callTool(ownerClient, tool, { id: link.id, ...args });
      expect(refused.isError, tool).toBe(true);
      expect(textOf(refused)).toMatch(
        /^The request body has a field this operation does not accept: (destination|title|rules)\.$/,
      );
    }
    expect((await call("GET", `/api/links/${link.id}`, { token: owner.token })).body).toEqual(before);

    const hooks = await callTool(ownerClient, "list_webhooks");
    expect(hooks.isError, textOf(hooks)).toBeFalsy();
    expect(hooks.structuredContent).toEqual((await call("GET", "/api/webhooks", { token: owner.token })).body);
    expect(textOf(hooks)).not.toContain("whsec_");
  });

  it("creates links in bulk and lists tags, answering what the HTTP API answers", async () => {
    const destination = freshDestination();
    const bulk = await callTool(ownerClient, "bulk_create_links", {
      links: [{ destination, tags: ["mcp-bulk"] }, { destination }, { destination: "http://127.0.0.1/admin" }, { slug: "x" }],
    });
    expect(bulk.isError, textOf(bulk)).toBeFalsy();
    const results = (
      bulk.structuredContent as { results: { index: number; status: number; link?: { id: string }; error?: string }[] }
    ).results;
    expect(results.slice(0, 2).map((result) => [result.index, result.status])).toEqual([
      [0, 201],
      [1, 200],
    ]);
    expect(results[1]!.link!.id).toBe(results[0]!.link!.id);
    const stored = await call("GET", `/api/links/${results[0]!.link!.id}`, { token: owner.token });
    expect(stored.body).toMatchObject({ destination, tags: ["mcp-bulk"] });
    const http = await call("POST", "/api/links/bulk", {
      token: owner.token,
      body: { links: [{ destination: "http://127.0.0.1/admin" }, { slug: "x" }] },
    });
    expect(results.slice(2).map(({ status, error }) => ({ status, error }))).toEqual(
      http.body.results.map(({ status, error }: { status: number; error: string }) => ({ status, error })),
    );
    expect(results[2]!.status).toBe(422);
    expect(results[3]!.status).toBe(400);
    const tooMany = await callTool(ownerClient, "bulk_create_links", { links: [] });
    expect(tooMany.isError).toBe(true);
    expect(textOf(tooMany)).toBe((await call("POST", "/api/links/bulk", { token: owner.token, body: { links: [] } })).body.error);

    const tags = await callTool(ownerClient, "list_tags");
    expect(tags.isError, textOf(tags)).toBeFalsy();
    expect(tags.structuredContent).toEqual((await call("GET", "/api/tags", { token: owner.token })).body);
    expect((tags.structuredContent as { tags: { name: string }[] }).tags.map((tag) => tag.name)).toContain("mcp-bulk");
  });

  it("starts an import and follows it to done: the file's rows become links, a second run skips them", async () => {
    const importer = await newUser("mcp-importer");
    const client = await connect({ token: importer.token });
    const file = [
      "Bitlink,Long URL,Title,Tags",
      "bit.ly/mcpOne,https://example.com/mcp-import/one,First,menus",
      'bit.ly/mcpTwo,https://example.com/mcp-import/two,"Second, with a comma",',
      "bit.ly/mcpBad,http://127.0.0.1/internal,Internal,",
    ].join("\r\n");
    const followed = async (id: string) => {
      for (let attempt = 0; attempt < 400; attempt++) {
        const result = await callTool(client, "get_import", { id });
        expect(result.isError, textOf(result)).toBeFalsy();
        const view = result.structuredContent as { status: string };
        if (view.status === "done" || view.status === "failed") return view;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`import ${id} did not finish`);
    };

    const dry = await callTool(client, "start_import", { file, dry_run: "1", format: "bitly" });
    expect(dry.structuredContent).toMatchObject({ status: "queued", dry_run: true, total: 3 });
    expect(await followed((dry.structuredContent as { id: string }).id)).toMatchObject({ created: 2, failed: 1 });
    expect((await call("GET", "/api/links", { token: importer.token })).body.links).toEqual([]);

    const started = await callTool(client, "start_import", { file });
    expect(started.isError, textOf(started)).toBeFalsy();
    const id = (started.structuredContent as { id: string }).id;
    const done = await followed(id);
    expect(done).toMatchObject({ status: "done", total: 3, created: 2, skipped: 0, failed: 1, errors: [{ row: 4 }] });
    expect(done).toEqual((await call("GET", `/api/imports/${id}`, { token: importer.token })).body);
    const listed = (await call("GET", "/api/links", { token: importer.token })).body.links as { id: string }[];
    const links = await Promise.all(
      listed.map(async (link) => (await call("GET", `/api/links/${link.id}`, { token: importer.token })).body),
    );
    expect(links.map((link) => [link.destination, link.imported_from]).sort()).toEqual([
      ["https://example.com/mcp-import/one", "bit.ly/mcpOne"],
      ["https://example.com/mcp-import/two", "bit.ly/mcpTwo"],
    ]);

    const again = await followed((await callTool(client, "start_import", { file })).structuredContent!.id as string);
    expect(again).toMatchObject({ created: 0, skipped: 2, failed: 1 });

    const json = await callTool(client, "start_import", {
      file: '[{"url":"https://example.com/mcp-import/json"}]',
      file_type: "json",
    });
    expect(await followed((json.structuredContent as { id: string }).id)).toMatchObject({ created: 1 });
    const png = await callTool(client, "start_import", { file: "\u0089PNG\r\n\u001a\n", format: "tinyurl" });
    expect(png.isError).toBe(true);
    expect(textOf(png)).toMatch(/auto, bitly, dub, rebrandly, shortio, shlink, kutt, generic/);
    const strangers = await callTool(ownerClient, "get_import", { id });
    expect(textOf(strangers)).toBe((await call("GET", `/api/imports/${id}`, { token: owner.token })).body.error);
    await client.close();
  });

  it("reads analytics with the parameters of GET /api/analytics, as it answers them", async () => {
    const link = (await call("POST", "/api/links", { token: owner.token, body: { destination: freshDestination() } })).body;
    const query = {
      link_id: link.id,
      group_by: "country",
      start: "2026-01-01",
      end: "2026-01-31",
      timezone: "Australia/Adelaide",
    };

    const tool = await callTool(ownerClient, "get_analytics", query);
    const http = await call("GET", `/api/analytics?${new URLSearchParams(query)}`, { token: owner.token });
    const csv = await callTool(ownerClient, "get_analytics", { ...query, format: "csv" });
    const httpCsv = await call("GET", `/api/analytics?${new URLSearchParams({ ...query, format: "csv" })}`, {
      token: owner.token,
    });

    expect(tool.structuredContent).toEqual(http.body);
    expect(textOf(csv)).toBe(httpCsv.text);
    const badZone = await callTool(ownerClient, "get_analytics", { timezone: "Mars/Olympus" });
    expect(textOf(badZone)).toBe(
      (await call("GET", "/api/analytics?timezone=Mars%2FOlympus", { token: owner.token })).body.error,
    );
  });

  it("lists the workspace's domains as GET /api/domains does, and another workspace's caller does not see them", async () => {
    const team = await newUser("mcp-domains");
    const added = await call("POST", "/api/domains", { token: team.token, body: { hostname: freshHostname() } });
    expect(added.status).toBe(201);
    const client = await connect({ token: team.token });
    const listed = await callTool(client, "list_domains");
    await client.close();

    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent).toEqual({ domains: [added.body] });
    expect(listed.structuredContent).toEqual((await call("GET", "/api/domains", { token: team.token })).body);
    const strangers = (await callTool(ownerClient, "list_domains")).structuredContent as { domains: { id: string }[] };
    expect(strangers.domains.map((domain) => domain.id)).not.toContain(added.body.id);
  });

  it("sets where a verified domain's root and unknown codes go, as PATCH /api/domains/{id} does", async () => {
    const team = await newUser("mcp-domain-destinations");
    const hostname = freshHostname();
    const id = newId("dom");
    await db().domain.create({ data: { id, workspaceId: team.workspaceId, hostname, verifiedAt: new Date() } });
    const client = await connect({ token: team.token });
    const set = await callTool(client, "set_domain_destinations", {
      id,
      root_destination: "https://example.com/home",
      not_found_destination: "https://example.com/help",
    });
    const unverified = await call("POST", "/api/domains", { token: team.token, body: { hostname: freshHostname() } });
    const refused = await callTool(client, "set_domain_destinations", { id: unverified.body.id, root_destination: null });
    await client.close();

    expect(set.isError, textOf(set)).toBeFalsy();
    expect(set.structuredContent).toMatchObject({
      id,
      root_destination: "https://example.com/home",
      not_found_destination: "https://example.com/help",
    });
    expect(set.structuredContent).toEqual((await call("GET", `/api/domains/${id}`, { token: team.token })).body);
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/not verified/);
  });

  it("describes the account as GET /api/account does", async () => {
    const account = await callTool(ownerClient, "get_account");
    expect(account.structuredContent).toEqual((await call("GET", "/api/account", { token: owner.token })).body);
  });

  it("answers a failure with an error result carrying the HTTP API's sentence", async () => {
    const body = { destination: "" };
    const http = await call("POST", "/api/links", { token: owner.token, body });
    const tool = await callTool(ownerClient, "create_link", body);

    expect(http.status).toBe(400);
    expect(tool.isError).toBe(true);
    expect(textOf(tool)).toBe(http.body.error);

    const unknownField = await callTool(ownerClient, "create_link", { destination: freshDestination(), colour: "red" });
    expect(textOf(unknownField)).toBe(
      (await call("POST", "/api/links", { token: owner.token, body: { destination: "https://example.com/x", colour: "red" } }))
        .body.error,
    );
  });

  it("gives another workspace's link and domain ids the same not-found answer as the HTTP API, through every tool", async () => {
    const stranger = await newUser("mcp-stranger");
    const theirLink = (await call("POST", "/api/links", { token: stranger.token, body: { destination: freshDestination() } }))
      .body;
    const theirs = {
      link: theirLink.id as string,
      domain: (await call("POST", "/api/domains", { token: stranger.token, body: { hostname: freshHostname() } })).body.id,
    };
    const notFound = {
      link: (await call("GET", `/api/links/${theirs.link}`, { token: owner.token })).body.error,
      domain: (await call("GET", `/api/domains/${theirs.domain}`, { token: owner.token })).body.error,
      domain_id: (
        await call("POST", "/api/links", {
          token: owner.token,
          body: { destination: freshDestination(), domain_id: theirs.domain },
        })
      ).body.error,
    };
    expect(notFound.link).toMatch(/No link with this id/);
    expect(notFound.domain).toMatch(/No domain with this id/);
    expect(notFound.domain_id).toMatch(/domain/);

    const naming = accountToolCalls(theirs, freshDestination).filter((entry) => entry.names !== null);
    expect(naming.map((entry) => entry.name)).toEqual([
      "create_link",
      "get_link",
      "get_link_history",
      "repoint_link",
      "set_link_rules",
      "schedule_repoint",
      "set_link_password",
      "set_scan_limit",
      "set_link_preview",
      "archive_link",
      "restore_link",
      "get_qr",
      "get_analytics",
      "set_domain_destinations",
    ]);
    for (const { name, args, names } of naming) {
      const result = await callTool(ownerClient, name, args);
      expect(result.isError, name).toBe(true);
      expect(textOf(result), name).toBe(notFound[names!]);
    }
    expect((await call("GET", `/api/links/${theirs.link}`, { token: stranger.token })).body).toMatchObject({
      destination: theirLink.destination,
      archived_at: null,
    });
  });

  it("holds a link id to the shape a path would, with the HTTP API's answer", async () => {
    const http = await call("GET", `/api/links/${encodeURIComponent("lnk_\u0000")}`, { token: owner.token });
    const tool = await callTool(ownerClient, "get_link", { id: "lnk_\u0000" });

    expect(http.status).toBe(404);
    expect(tool.isError).toBe(true);
    expect(textOf(tool)).toBe(http.body.error);
  });

  it("refuses a create without a subscription with the HTTP API's 402 sentence and its details", async () => {
    const unsubscribed = await newUser("mcp-unsubscribed", { subscription: false });
    const client = await connect({ token: unsubscribed.token });
    const body = { destination: freshDestination() };

    const tool = await callTool(client, "create_link", body);
    await client.close();
    const http = await call("POST", "/api/links", { token: unsubscribed.token, body });

    expect(http.status).toBe(402);
    expect(tool.isError).toBe(true);
    expect(textOf(tool)).toBe(http.body.error);
    expect(JSON.parse((tool.content[1] as { text: string }).text)).toEqual(http.body);
  });

  it("refuses a viewer's create with the API's 403 sentence; the viewer reads links, analytics, domains and the account", async () => {
    const viewer = await newUser("mcp-viewer");
    const caller = await joinWorkspace(viewer, owner.workspaceId, "viewer");
    const client = await connect(caller);
    const body = { destination: freshDestination() };

    const tool = await callTool(client, "create_link", body);
    const reads = await Promise.all(
      ["list_links", "get_analytics", "list_domains", "get_account"].map((name) => callTool(client, name)),
    );
    await client.close();
    const http = await call("POST", "/api/links", { ...caller, body });

    expect(http.status).toBe(403);
    expect(tool.isError).toBe(true);
    expect(textOf(tool)).toBe(http.body.error);
    for (const read of reads) expect(read.isError ?? false, textOf(read)).toBe(false);
    // get_account says what this caller may do: a viewer reads, creates nothing.
    expect(reads[3]!.structuredContent).toMatchObject({ can: { list_links: true, create_links: false } });
  });

  it("acts on the workspace X-Workspace-Id selects, as the HTTP API does", async () => {
    const teammate = await newUser("mcp-teammate");
    const caller = await joinWorkspace(teammate, owner.workspaceId, "member");
    const client = await connect(caller);
    const created = await callTool(client, "create_link", { destination: freshDestination() });
    await client.close();

    expect(created.isError).toBeFalsy();
    const id = (created.structuredContent as { id: string }).id;
    expect((await call("GET", `/api/links/${id}`, { token: owner.token })).status).toBe(200);
  });
});

describe("authentication of the MCP endpoint", () => {
  it("lets a caller without credentials connect and list the tools; every tool but buy_link answers the OAuth challenge", async () => {
    const anonymous = await connect();
    const calls = accountToolCalls({ link: "lnk_x", domain: "dom_x" }, freshDestination);
    expect([...calls.map((entry) => entry.name), "buy_link"].sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
    for (const { name, args } of calls) {
      // HTTP 401 with the Bearer challenge naming the protected resource metadata: how an OAuth client learns to connect.
      const response = await mcpRequest({}, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });
      expect(response.status, name).toBe(401);
      expect(response.body, name).toEqual({ error: AUTHENTICATE_MESSAGE });
      expect(response.headers.get("www-authenticate"), name).toMatch(
        /^Bearer realm="api", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/api\/mcp"$/,
      );
    }
    await expect(callTool(anonymous, "list_links")).rejects.toThrow(/Error POSTing to endpoint/);
    await anonymous.close();
  });

  it("refuses a credential that is present but invalid at the HTTP level: 401 with WWW-Authenticate", async () => {
    for (const authorization of ["Bearer pl_not-a-key", "Bearer not.a.jwt", "Basic dXNlcjpwYXNz", "Bearer"]) {
      const response = await mcpRequest({ authorization });
      expect(response.status, authorization).toBe(401);
      expect(response.headers.get("www-authenticate"), authorization).toMatch(/^Bearer /);
      expect(response.body, authorization).toEqual({ error: expect.any(String) });
    }
    await expect(connect({ token: "pl_not-a-key" })).rejects.toThrow();
  });

  it("refuses a workspace the caller is not a member of with 401 before anything else", async () => {
    const stranger = await newUser("mcp-outsider");
    const response = await mcpRequest({ authorization: `Bearer ${owner.token}`, "x-workspace-id": stranger.workspaceId });
    expect(response.status).toBe(401);
    expect(response.body.error).toMatch(/not a member/);
  });

  it("answers the transport's own refusals and the methods it does not serve as every route does: { error }", async () => {
    const withoutEventStream = await call("POST", "/api/mcp", {
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      headers: { accept: "application/json" },
    });
    expect(withoutEventStream.status).toBe(406);
    expect(withoutEventStream.body).toEqual({
      error: expect.stringMatching(/accept both application\/json and text\/event-stream\.$/),
    });

    const get = await call("GET", "/api/mcp", { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, OPTIONS");
    expect(get.body).toEqual({ error: expect.any(String) });
  });

  it("answers a body that is not a JSON-RPC message with 400 and the API's sentence", async () => {
    const response = await mcpRequest({}, { hello: "world" });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/jsonrpc/);
  });
});

describe("the write budget over MCP", () => {
  beforeAll(async () => {
    process.env.WRITE_RATE_LIMIT_PER_MINUTE = "2";
    resetConfig();
    await resetWriteLimiter();
  });

  afterAll(async () => {
    process.env.WRITE_RATE_LIMIT_PER_MINUTE = "10000";
    resetConfig();
    await resetWriteLimiter();
  });

  it("shares the workspace's write budget with the HTTP API, and reads do not spend it", async () => {
    const user = await newUser("mcp-budget");
    const client = await connect({ token: user.token });

    expect((await call("POST", "/api/links", { token: user.token, body: { destination: freshDestination() } })).status).toBe(201);
    expect((await callTool(client, "list_links")).isError).toBeFalsy();
    expect((await callTool(client, "create_link", { destination: freshDestination() })).isError).toBeFalsy();
    const refused = await callTool(client, "create_link", { destination: freshDestination() });
    const http = await call("POST", "/api/links", { token: user.token, body: { destination: freshDestination() } });
    await client.close();

    expect(http.status).toBe(429);
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(http.body.error);
  });

  it("spends a write on arguments it refuses, as the HTTP API spends one on a body it refuses", async () => {
    const user = await newUser("mcp-refused");
    const client = await connect({ token: user.token });

    const refusedArguments = await callTool(client, "create_link", { destination: 42 });
    const http = await call("POST", "/api/links", { token: user.token, body: { destination: 42 } });
    const spent = await callTool(client, "create_link", { destination: freshDestination() });
    const httpAfter = await call("POST", "/api/links", { token: user.token, body: { destination: freshDestination() } });
    await client.close();

    expect(refusedArguments.isError).toBe(true);
    expect(http.status).toBe(400);
    expect(textOf(refusedArguments)).toBe(http.body.error);
    expect(httpAfter.status).toBe(429);
    expect(spent.isError).toBe(true);
    expect(textOf(spent)).toBe(httpAfter.body.error);
  });
});

describe("how agents find the MCP server", () => {
  it("/llms.txt names the endpoint, the credential, every tool and how to buy without an account", async () => {
    const { GET } = await import("@/app/llms.txt/route");
    const text = await GET().text();

    for (const expected of [
      `${APP_ORIGIN}/api/mcp`,
      "Authorization: Bearer",
      "org.paymentauth/credential",
      "x402/payment",
      `${APP_ORIGIN}/docs/agents`,
    ]) {
      expect(text).toContain(expected);
    }
    for (const tool of TOOLS) expect(text).toContain(tool.name);
  });

  it("/docs/agents says how to connect (with client configurations), lists the tools and walks through buy_link", async () => {
    const { default: AgentsPage } = await import("@/app/docs/agents/page");
    const html = renderToStaticMarkup(createElement(AgentsPage));

    for (const expected of [
      `${APP_ORIGIN}/api/mcp`,
      "With OAuth: connect with a click",
      "Connected apps",
      "@modelcontextprotocol/inspector --cli",
      "mcpServers",
      "mcp-remote",
      "StreamableHTTPClientTransport",
      "Authorization: Bearer",
      "McpClient.wrap",
      "x402/payment",
      "org.paymentauth/payment-required",
      "api_key",
    ]) {
      expect(html).toContain(expected);
    }
    for (const tool of TOOLS) expect(html).toContain(`<code>${tool.name}</code>`);
  });
});
