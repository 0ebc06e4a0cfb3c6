import type { Metadata } from "next";
import { Table } from "@/components/table";
import { config } from "@/lib/config";
import { MAX_JSON_BODY_BYTES } from "@/lib/http/body";
import {
  type Credentials,
  HTTP_METHODS,
  type JsonSchema,
  type OpenApiDocument,
  type Operation,
  type Parameter,
  type Reference,
  openApiDocument,
} from "@/lib/http/openapi";
import { MAX_LIST_SIZE } from "@/lib/links/schemas";

// The server address and the write limit come from runtime configuration, not the build's.
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "API reference — Permalink" };

type Field = { name: string; schema: JsonSchema; required: boolean };

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
      <Operations document={document} />
      <Schemas document={document} />
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
  [402, "Payment needed: the machine-payment challenge of POST /api/links without credentials (see /docs/payments); or, when creating or editing with a bearer credential, no active subscription or a spent link allowance. Existing links keep resolving."],
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
      <Table headings={["Status", "When"]} rows={ERROR_STATUSES.map(([status, condition]) => ({ key: status, cells: [status, condition] }))} />
      <p>
        A <strong>402</strong> body carries more than <code>error</code>: <code>price</code>, <code>currency</code>,{" "}
        <code>pay</code> (the ways forward) and <code>docs</code>. An agent without an account buys a link by answering it:{" "}
        <a href="/docs/payments">machine payments</a>.
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
      <pre>
        <code>{command}</code>
      </pre>
      <p>
        The answer is 201 with the new <a href="#schema-Link">Link</a>, or 200 with the existing link when this workspace already
        has one with an allocated slug for the same destination.
      </p>
    </section>
  );
}

function Operations({ document }: { document: OpenApiDocument }) {
  return (
    <section>
      <h2 id="operations">Operations</h2>
      {Object.entries(document.paths).flatMap(([path, item]) =>
        HTTP_METHODS.flatMap((method) => {
          const operation = item[method];
          return operation ? [<OperationSection key={operation.operationId} method={method} path={path} operation={operation} document={document} />] : [];
        }),
      )}
    </section>
  );
}

function OperationSection({ method, path, operation, document }: { method: string; path: string; operation: Operation; document: OpenApiDocument }) {
  const parameters = operation.parameters.filter((parameter): parameter is Parameter => !isReference(parameter));
  const bodyRef = operation.requestBody?.content["application/json"]?.schema;
  return (
    <article id={operation.operationId}>
      <h3>
        <span className="method">{method.toUpperCase()}</span> <code>{path}</code>: {operation.summary}
      </h3>
      <p>{operation.description}</p>
      <p>
        <strong>Auth:</strong> {AUTH_DESCRIPTIONS[operation["x-credentials"]]}
        {operation["x-payment"] && (
          <>
            {" "}Or none: an agent pays {operation["x-payment"].price} {operation["x-payment"].currency} per call with MPP or x402 (<a href="/docs/payments">how</a>).
          </>
        )}
      </p>
      {parameters.length > 0 && <ParametersTable parameters={parameters} />}
      {bodyRef && <RequestBody schemaRef={bodyRef} document={document} />}
      <ResponsesTable operation={operation} />
    </article>
  );
}

const AUTH_DESCRIPTIONS: Record<Credentials, string> = {
  api_key_or_session: "Bearer API key or session token; optional X-Workspace-Id header.",
  api_key: "Bearer API key only (a session token gets 403).",
  session: "Bearer session token only (an API key gets 403); optional X-Workspace-Id header.",
  none: "none.",
  operator: "Bearer OPERATOR_TOKEN (the deployment's operator secret); 503 when it is not set.",
  cron: "Bearer CRON_SECRET (Vercel Cron sends it); 503 when it is not set.",
  stripe_signature: "the Stripe-Signature header, verified with STRIPE_WEBHOOK_SECRET; 503 when this deployment does not bill through Stripe.",
};

function ParametersTable({ parameters }: { parameters: Parameter[] }) {
  const rows = parameters.map((parameter) => ({
    key: `${parameter.in}:${parameter.name}`,
    cells: [
      <>
        <code>{parameter.name}</code>
        {parameter.required ? " (required)" : ""}
      </>,
      parameter.in,
      describeType(parameter.schema),
      joinNotes(parameter.description, describeRules(parameter.schema)),
    ],
  }));
  return <Table headings={["Parameter", "In", "Type", "Notes"]} rows={rows} />;
}

function RequestBody({ schemaRef, document }: { schemaRef: JsonSchema; document: OpenApiDocument }) {
  const name = referencedName(schemaRef);
  const schema = name ? document.components.schemas[name] : undefined;
  if (!name || !schema) return null;
  return (
    <>
      <p>
        <strong>Request body</strong> (JSON, <a href={`#schema-${name}`}>{name}</a>)
        {schema.additionalProperties === false ? "; any other field is refused with 400" : ""}:
      </p>
      <FieldsTable fields={fieldsOf(schema)} />
    </>
  );
}

function ResponsesTable({ operation }: { operation: Operation }) {
  const rows = Object.entries(operation.responses).map(([status, response]) => {
    const schema = response.content?.["application/json"]?.schema;
    const names = (schema?.oneOf ?? [schema]).map((option) => referencedName(option as JsonSchema | undefined)).filter((name) => name !== undefined);
    const body =
      names.length === 0
        ? "JSON"
        : names.map((name, index) => (
            <span key={name}>
              {index > 0 && " or "}
              <a href={`#schema-${name}`}>{name}</a>
            </span>
          ));
    return { key: status, cells: [status, body, response.description] };
  });
  return <Table headings={["Status", "Body", "When"]} rows={rows} />;
}

function Schemas({ document }: { document: OpenApiDocument }) {
  return (
    <section>
      <h2 id="schemas">Bodies</h2>
      {Object.entries(document.components.schemas).map(([name, schema]) => (
        <article key={name} id={`schema-${name}`}>
          <h3>{name}</h3>
          {schema.description && <p>{schema.description}</p>}
          <FieldsTable fields={fieldsOf(schema)} />
        </article>
      ))}
    </section>
  );
}

function FieldsTable({ fields }: { fields: Field[] }) {
  const rows = fields.map((field) => ({
    key: field.name,
    cells: [
      <>
        <code>{field.name}</code>
        {field.required ? "" : " (optional)"}
      </>,
      describeType(field.schema),
      joinNotes(field.schema.description, describeRules(field.schema)),
    ],
  }));
  return <Table headings={["Field", "Type", "Notes"]} rows={rows} />;
}

/** Flattens nested objects into dotted names (`workspace.api_key.hint`, `members[].role`). */
function fieldsOf(schema: JsonSchema, prefix = ""): Field[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).flatMap(([key, property]) => {
    if (typeof property === "boolean") return [];
    const name = prefix + key;
    const field = { name, schema: property, required: required.has(key) };
    const nested = nestedObject(property);
    if (nested) return [field, ...fieldsOf(nested.schema, `${name}${nested.isArray ? "[]" : ""}.`)];
    return [field];
  });
}

function nestedObject(schema: JsonSchema): { schema: JsonSchema; isArray: boolean } | undefined {
  const withoutNull = schema.anyOf?.find((option) => option.type !== "null") ?? schema;
  if (withoutNull.properties) return { schema: withoutNull, isArray: false };
  const items = withoutNull.items;
  if (withoutNull.type === "array" && isSchema(items) && items.properties) return { schema: items, isArray: true };
  return undefined;
}

function describeType(schema: JsonSchema): string {
  const name = referencedName(schema);
  if (name) return name;
  if (schema.anyOf) return schema.anyOf.map(describeType).join(" or ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  if (schema.type === "array") return `array of ${isSchema(schema.items) ? describeType(schema.items) : "any"}`;
  const types = Array.isArray(schema.type) ? schema.type.join(" or ") : (schema.type ?? "any");
  return schema.format ? `${types} (${schema.format})` : types;
}

function describeRules(schema: JsonSchema): string {
  const rules: string[] = [];
  if (schema.minLength !== undefined) rules.push(`at least ${characters(schema.minLength)}`);
  if (schema.maxLength !== undefined) rules.push(`at most ${characters(schema.maxLength)}`);
  if (schema.pattern) rules.push(`matches ${schema.pattern}`);
  if (isMeaningfulBound(schema.minimum)) rules.push(`minimum ${schema.minimum}`);
  if (isMeaningfulBound(schema.maximum)) rules.push(`maximum ${schema.maximum}`);
  if (schema.maxItems !== undefined) rules.push(`at most ${schema.maxItems} items`);
  return rules.join("; ");
}

function characters(count: number): string {
  return count === 1 ? "1 character" : `${count} characters`;
}

/** zod states the safe-integer range on every integer; it says nothing to a reader. */
function isMeaningfulBound(bound: number | undefined): bound is number {
  return bound !== undefined && Math.abs(bound) !== Number.MAX_SAFE_INTEGER;
}

function joinNotes(...notes: (string | undefined)[]): string {
  return notes.filter(Boolean).join(". ");
}

function referencedName(schema: JsonSchema | undefined): string | undefined {
  return schema?.$ref?.split("/").at(-1);
}

function isReference(value: Parameter | Reference): value is Reference {
  return "$ref" in value;
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
