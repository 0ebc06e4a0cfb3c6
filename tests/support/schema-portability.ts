/**
 * The MCP Inspector's tool-schema portability check, as `--strict` applies it
 * (`@modelcontextprotocol/inspector` 2.12.0, core/json/schemaLint.ts): a `type` array, a `$ref`
 * outside the document, a schema with no validation keyword and a bare boolean where a schema
 * belongs each make a finding. Both MCP suites run these rules over what the SDK's Client lists,
 * in-process and against the built app; the Inspector itself (a devDependency) runs `--strict`
 * against the app as `npm start` serves it in e2e/inspector.e2e.ts, and these rules must agree
 * with it: nothing found by either.
 */
export type PortabilityFinding = { tool: string; schema: "inputSchema" | "outputSchema"; path: string; rule: string };

const BOOLEAN_VALUED = new Set(["additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems"]);
const SUBSCHEMA = [
  "items",
  "contains",
  "not",
  "propertyNames",
  "if",
  "then",
  "else",
  ...BOOLEAN_VALUED,
  "contentSchema",
] as const;
const SUBSCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"] as const;
const CONSTRAINING = new Set([
  ...["type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"],
  ...["maxLength", "minLength", "pattern", "format", "contentMediaType", "contentEncoding", "contentSchema"],
  ...["maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties"],
  ...["required", "dependentRequired", "allOf", "anyOf", "oneOf", "not", "items", "prefixItems", "contains"],
  ...["additionalItems", "unevaluatedItems", "properties", "patternProperties", "additionalProperties"],
  ...["unevaluatedProperties", "propertyNames", "dependentSchemas", "dependencies", "$ref", "$dynamicRef", "$recursiveRef"],
]);
const JSON_TYPES = new Set(["null", "boolean", "object", "array", "number", "string", "integer"]);

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

/** Every finding in the tools' input and output schemas; none means the Inspector's --strict has nothing to say. */
export function portabilityFindings(
  tools: readonly { name: string; inputSchema?: unknown; outputSchema?: unknown }[],
): PortabilityFinding[] {
  return tools.flatMap((tool) =>
    (["inputSchema", "outputSchema"] as const).flatMap((schema) => {
      if (tool[schema] === undefined) return [];
      const findings: PortabilityFinding[] = [];
      const hasIds = declaresId(tool[schema]);
      walk(tool[schema], "", undefined, (path, rule) => findings.push({ tool: tool.name, schema, path, rule }), hasIds);
      return findings;
    }),
  );
}

function walk(
  node: unknown,
  path: string,
  keyword: string | undefined,
  report: (path: string, rule: string) => void,
  hasIds: boolean,
) {
  if (typeof node === "boolean") {
    if (keyword === undefined || !BOOLEAN_VALUED.has(keyword)) report(path, "boolean-schema");
    return;
  }
  if (!isNode(node)) return;
  const { type, $ref } = node;
  if (
    Array.isArray(type) &&
    type.length > 0 &&
    type.every((name) => JSON_TYPES.has(name)) &&
    new Set(type).size === type.length
  ) {
    report(path, "type-union");
  }
  if (typeof $ref === "string" && $ref !== "" && !$ref.startsWith("#") && !hasIds) report(path, "remote-ref");
  const constrains =
    Object.keys(node).some((key) => CONSTRAINING.has(key)) || ("if" in node && ("then" in node || "else" in node));
  if (!constrains && keyword !== "not") report(path, "untyped-schema");
  forEachSubschema(node, path, (child, childPath, childKeyword) => walk(child, childPath, childKeyword, report, hasIds));
}

function forEachSubschema(node: Node, path: string, visit: (child: unknown, path: string, keyword: string) => void) {
  for (const key of SUBSCHEMA_MAPS) {
    const map = node[key];
    if (isNode(map)) for (const [name, child] of Object.entries(map)) visit(child, `${path}.${key}.${name}`, key);
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((child, index) => visit(child, `${path}.${key}[${index}]`, key));
  }
  for (const key of SUBSCHEMA) {
    if (!(key in node)) continue;
    const value = node[key];
    if (key === "items" && Array.isArray(value)) value.forEach((child, index) => visit(child, `${path}.items[${index}]`, key));
    else visit(value, `${path}.${key}`, key);
  }
}

function declaresId(node: unknown): boolean {
  if (!isNode(node)) return false;
  if (typeof node.$id === "string" && node.$id !== "") return true;
  let found = false;
  forEachSubschema(node, "", (child) => (found ||= declaresId(child)));
  return found;
}
