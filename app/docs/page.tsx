import { ApiOperations, ApiSchemas } from "@/components/api-reference";
import { Table } from "@/components/table";
import { CodeBlock } from "@/components/ui/code-block";
import { config } from "@/lib/config";
import { MAX_JSON_BODY_BYTES } from "@/lib/http/body";
import { MAX_LIST_SIZE } from "@/lib/links/schemas";
import { openApiDocument } from "@/lib/openapi/document";
import type { Metadata } from "next";

// The server address and the write limit come from runtime configuration, not the build's.
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "API reference — Permalink" };

export default function DocsPage() {
  const document = openApiDocument();
  const baseUrl = document.servers[0]?.url ?? "";
  return (
    <main>
      <h1>API reference</h1>
      <p>
        Version <code>{document.info.version}</code>, served at <code>{baseUrl}</code>. The same description as OpenAPI 3.1:{" "}
        <a href="/api/openapi.json">/api/openapi.json</a>.
      </p>
      <p>
        Short codes never stop resolving: not when repointed, not when a subscription lapses, not when archived. Every new link
        starts in quarantine (status 1), which runs a live safety check on each visit until the link is released.
      </p>
      <Authentication apiKeyPrefix={config().API_KEY_PREFIX} />
      <Errors />
      <Limits writesPerMinute={config().WRITE_RATE_LIMIT_PER_MINUTE} />
      <CreateLinkExample baseUrl={baseUrl} apiKeyPrefix={config().API_KEY_PREFIX} />
      <ApiOperations document={document} />
      <ApiSchemas document={document} />
    </main>
  );
}

function Authentication({ apiKeyPrefix }: { apiKeyPrefix: string }) {
  return (
    <section>
      <h2 id="authentication">Authentication</h2>
      <p>
        Send <code>Authorization: Bearer &lt;credential&gt;</code>. Two credentials work, and they behave identically:
      </p>
      <ul>
        <li>
          <strong>API key</strong> (<code>{apiKeyPrefix}_…</code>) for programs. A workspace has at most one live key; an owner or
          admin mints it with <code>POST /api/billing/claim</code> using a session token. It is shown once and stored only as a
          hash. It can repoint every link of the workspace, so guard it.
        </li>
        <li>
          <strong>Session token</strong>, the signed JWT the dashboard gets from its identity provider. Only a session token can
          mint or revoke the API key.
        </li>
      </ul>
      <p>
        A key belongs to exactly one workspace. A session token that can reach several workspaces picks one with the{" "}
        <code>X-Workspace-Id</code> header (a key ignores the header).
      </p>
      <p>
        <strong>401</strong> means the service does not know who you are: the credential is missing or invalid, or{" "}
        <code>X-Workspace-Id</code> names a workspace you are not a member of. That check comes before anything else about the
        request. Once you are known, a refusal because of your role or credential kind is <strong>403</strong>.
      </p>
    </section>
  );
}

const ERROR_STATUSES: [number, string][] = [
  [400, "The body or query string failed validation, the body is not JSON, or the destination is malformed."],
  [401, "Missing or invalid credential, or a workspace you are not a member of."],
  [
    402,
    "Payment needed: the machine-payment challenge of POST /api/links without credentials (see " +
      "/docs/payments); or, when creating or editing with a bearer credential, no active subscription " +
      "or a spent link allowance. Existing links keep resolving.",
  ],
  [403, "Your role or credential kind does not allow this action."],
  [404, "No such link (or no live key to revoke); also any unknown path under /api."],
  [409, "The custom slug is taken, a live API key already exists, or the link was blocked for abuse."],
  [413, `The request body is larger than ${MAX_JSON_BODY_BYTES / 1024} KiB.`],
  [422, "The destination was refused (internal or private address, cloud metadata endpoint, userinfo) or failed a safety check."],
  [429, "Too many writes this minute for this workspace."],
  [500, "Something went wrong on our side; the request was not completed."],
];

function Errors() {
  return (
    <section>
      <h2 id="errors">Errors</h2>
      <p>
        Every failure answers a real HTTP status with the body <code>{'{ "error": "…" }'}</code>. The message is a sentence for a
        human; switch on the status, never on the text.
      </p>
      <Table
        headings={["Status", "When"]}
        rows={ERROR_STATUSES.map(([status, condition]) => ({ key: status, cells: [status, condition] }))}
      />
      <p>
        A <strong>402</strong> body carries more than <code>error</code>: <code>price</code>, <code>currency</code>,{" "}
        <code>pay</code> (the ways forward) and <code>docs</code>. An agent without an account buys a link by answering it:{" "}
        <a href="/docs/payments">machine payments</a>. The same operations are MCP tools for agents, buying included:{" "}
        <a href="/docs/agents">agents and MCP</a>.
      </p>
    </section>
  );
}

function Limits({ writesPerMinute }: { writesPerMinute: number }) {
  return (
    <section>
      <h2 id="limits">Limits</h2>
      <ul>
        <li>
          A list page holds at most {MAX_LIST_SIZE} links (<code>limit</code> 1 to {MAX_LIST_SIZE}); follow{" "}
          <code>next_cursor</code> for more.
        </li>
        <li>
          {writesPerMinute} writes a minute per workspace, shared by its members and its key. Beyond that: 429 with{" "}
          <code>Retry-After</code>, <code>RateLimit-Policy</code> and <code>RateLimit</code> headers.
        </li>
        <li>Request bodies up to {MAX_JSON_BODY_BYTES / 1024} KiB; larger ones get 413.</li>
        <li>One live API key per workspace.</li>
      </ul>
    </section>
  );
}

function CreateLinkExample({ baseUrl, apiKeyPrefix }: { baseUrl: string; apiKeyPrefix: string }) {
  const command = [
    `curl -X POST ${baseUrl}/api/links \\`,
    `  -H "Authorization: Bearer $PERMALINK_API_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"destination": "https://example.com/spring-menu"}'`,
  ].join("\n");
  return (
    <section>
      <h2 id="example">Example: create a link</h2>
      <p>
        With <code>PERMALINK_API_KEY</code> holding your <code>{apiKeyPrefix}_…</code> key:
      </p>
      <CodeBlock>{command}</CodeBlock>
      <p>
        The answer is 201 with the new <a href="#schema-Link">Link</a>, or 200 with the existing link when this workspace already
        has one with an allocated slug for the same destination.
      </p>
    </section>
  );
}
