import { HTTP_METHODS } from "@/lib/http/operation";
import type { ApiDocument, ApiOperation, ApiParameter, Credentials, JsonSchema } from "@/lib/openapi/document";
import type { ReferenceObject } from "openapi3-ts/oas31";
import { Table } from "./table";

/**
 * The API reference rendered from the OpenAPI document, on our own origin and without client
 * script: the document's schemas become tables of fields. The prose around it lives in app/docs.
 */

type Operation = ApiOperation;
type Parameter = ApiParameter;
type Reference = ReferenceObject;
type Field = { name: string; schema: JsonSchema; required: boolean };

/** Every operation of the document: auth, parameters, request body and responses, as tables. */
export function ApiOperations({ document }: { document: ApiDocument }) {
  return (
    <section>
      <h2 id="operations">Operations</h2>
      {Object.entries(document.paths).flatMap(([path, item]) =>
        HTTP_METHODS.flatMap((method) => {
          const operation = item[method];
          return operation
            ? [
                <OperationSection
                  key={operation.operationId}
                  method={method}
                  path={path}
                  operation={operation}
                  document={document}
                />,
              ]
            : [];
        }),
      )}
    </section>
  );
}

function OperationSection({
  method,
  path,
  operation,
  document,
}: {
  method: string;
  path: string;
  operation: Operation;
  document: ApiDocument;
}) {
  const parameters = operation.parameters.filter((parameter): parameter is Parameter => !isReference(parameter));
  const bodyRef = operation.requestBody?.content["application/json"]?.schema as JsonSchema | undefined;
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
            {" "}
            Or none: an agent pays {operation["x-payment"].price} {operation["x-payment"].currency} per call with MPP or x402 (
            <a href="/docs/payments">how</a>).
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
  optional_api_key_or_session:
    "Bearer API key or session token, or none at all (a credential that is sent must be valid: 401 " +
    "otherwise); optional X-Workspace-Id header.",
  api_key: "Bearer API key only (a session token gets 403).",
  session: "Bearer session token only (an API key gets 403); optional X-Workspace-Id header.",
  none: "none.",
  operator: "Bearer OPERATOR_TOKEN (the deployment's operator secret); 503 when it is not set.",
  optional_operator:
    "none; with Bearer OPERATOR_TOKEN (the deployment's operator secret) the answer says more. Any other " +
    "Authorization is answered as none.",
  cron: "Bearer CRON_SECRET (Vercel Cron sends it); 503 when it is not set.",
  stripe_signature:
    "the Stripe-Signature header, verified with STRIPE_WEBHOOK_SECRET; 503 when this deployment does not bill through Stripe.",
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

function RequestBody({ schemaRef, document }: { schemaRef: JsonSchema; document: ApiDocument }) {
  const name = referencedName(schemaRef);
  const schema = name ? document.components.schemas[name] : undefined;
  if (!name || !schema) return null;
  return (
    <>
      <p>
        <strong>Request body</strong> (JSON, <a href={`#schema-${name}`}>{name}</a>)
        {schema.additionalProperties === false ? "; any other field is refused with 400" : ""}
        {schema.properties ? ":" : `: ${schema.description ?? ""}`}
      </p>
      <FieldsTable fields={fieldsOf(schema)} />
    </>
  );
}

function ResponsesTable({ operation }: { operation: Operation }) {
  const rows = Object.entries(operation.responses).map(([status, response]) => {
    const schema = response.content?.["application/json"]?.schema as JsonSchema | undefined;
    const names = (schema?.oneOf ?? [schema])
      .map((option) => referencedName(option as JsonSchema | undefined))
      .filter((name) => name !== undefined);
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

/** Every body schema of the document, its fields flattened into one table. */
export function ApiSchemas({ document }: { document: ApiDocument }) {
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
  // A body that is not an object of fields (a JSON export: an array, or one of several pages) is told by its description.
  if (rows.length === 0) return null;
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
