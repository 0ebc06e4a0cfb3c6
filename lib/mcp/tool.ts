import { runOperation } from "@/lib/api/pipeline";
import { recordIdParams } from "@/lib/api/route";
import { validate } from "@/lib/http/body";
import { DomainError, unauthenticated } from "@/lib/http/errors";
import type { OperationSpec, ParameterSpec } from "@/lib/http/operation";
import { INTERNAL_ERROR_MESSAGE } from "@/lib/http/respond";
import { log } from "@/lib/log";
import type { Principal } from "@/lib/workspaces/types";
import type { CallToolResult, Tool as McpTool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** What a tool call knows: the caller the HTTP request authenticated (null without credentials), that request, and the call's _meta. */
export type CallContext = { principal: Principal | null; request: Request; meta: Record<string, unknown> | undefined };

/** The context of a tool that needs an account: the caller is known. */
export type AccountContext = CallContext & { principal: Principal };

type Responses<Op> = Op extends { responses: infer R } ? R : never;
type SuccessStatus = 200 | 201 | 202 | 203;
type SchemasIn<Response> = Response extends { body: infer Body } ? (Body extends readonly (infer One)[] ? One : Body) : never;

/** The schemas an operation answers a success with (one of several for POST /api/links: Link or PaidLink). */
export type SuccessSchema<Op> = Extract<
  { [Status in keyof Responses<Op> & SuccessStatus]: SchemasIn<Responses<Op>[Status]> }[keyof Responses<Op> & SuccessStatus],
  z.ZodType
>;

type PathNames<Op> = Op extends { parameters: readonly (infer P)[] }
  ? P extends { in: "path"; name: infer Name extends string }
    ? Name
    : never
  : never;

type Fields<Op> = Op extends { body: infer Body extends z.ZodType }
  ? z.output<Body>
  : Op extends { query: infer Query extends z.ZodType }
    ? z.output<Query>
    : Record<never, never>;

/** The names of the operation's body or query fields. */
type FieldName<Op> = keyof Fields<Op> & string;

/**
 * A tool's arguments: the operation's path parameters and its body's or query's fields, or the
 * ones the tool takes (toolInput builds their schema).
 */
export type ToolInput<Op, Taken extends FieldName<Op> = FieldName<Op>> = { [Name in PathNames<Op>]: string } & Pick<
  Fields<Op>,
  Taken
>;

/** Arguments a tool takes beyond the operation's fields: what the HTTP door carries otherwise (start_import's file, the HTTP body). */
type ExtraArguments = z.ZodRawShape;

/** The tool's arguments: the operation's it takes, and its own extra ones. */
type RunInput<Op, Extra extends ExtraArguments, Taken extends FieldName<Op>> = ToolInput<Op, Taken> & ExtraInput<Extra>;

/** The tool's own arguments; none adds nothing (a closed object's output type would open every other name as never). */
type ExtraInput<Extra extends ExtraArguments> = [keyof Extra] extends [never] ? unknown : z.output<z.ZodObject<Extra>>;

/** A CallToolResult, or a value of the output schema (none without one). */
type ToolResult<Output> = CallToolResult | z.output<Output>;

/**
 * What a tool adds to the operation it names: the words an agent reads, and the capability call.
 * The rest (input and output schemas, title, write budget, read-only hint, path-id check) is the
 * operation's. A JSON value returned by run becomes the structured result; a CallToolResult (an
 * image, a CSV text beside the report) is sent as it is.
 */
type ToolWording<Op, Output, Context, Extra extends ExtraArguments, Taken extends FieldName<Op>> = {
  name: string;
  /** For agents: what the tool does, what it needs and what comes back. Limits are in the schemas. */
  description: string;
  /** Only where two tools are doors of one operation (buy_link): the operation's summary otherwise. */
  title?: string;
  /** Which of the operation's success bodies this tool answers with, when it declares several. */
  output?: Output;
  /**
   * Only where a tool is a door to part of an operation (set_link_rules takes the rules of
   * PATCH /api/links/{id}): the body's or query's fields it takes; any other is refused.
   */
  fields?: readonly Taken[];
  /** Fields the operation leaves optional that this tool requires (repoint_link's destination). */
  required?: readonly NoInfer<Taken>[];
  hints?: ToolHints;
  /** Only where the HTTP door carries part of the input outside its body or query (start_import's file): those fields. */
  arguments?: Extra;
  run(input: RunInput<Op, Extra, Taken>, context: Context): Promise<ToolResult<Output>>;
};

/** A tool that needs an account: a call without credentials is refused, and run knows the caller. */
type AccountToolWording<
  Op,
  Output,
  Extra extends ExtraArguments = Record<never, never>,
  Taken extends FieldName<Op> = FieldName<Op>,
> = ToolWording<Op, Output, AccountContext, Extra, Taken> & { anyone?: false };

/** A tool anyone may call, without credentials (buy_link). */
type OpenToolWording<
  Op,
  Output,
  Extra extends ExtraArguments = Record<never, never>,
  Taken extends FieldName<Op> = FieldName<Op>,
> = ToolWording<Op, Output, CallContext, Extra, Taken> & { anyone: true };

/**
 * MCP's hints for a write (a GET is read-only by its method): unless the tool says otherwise, a
 * write is destructive and not idempotent (MCP's own defaults), and every tool acts on this
 * service alone (a closed world).
 */
type ToolHints = { destructive?: boolean; idempotent?: boolean; openWorld?: boolean };

/** A tool as the server lists and calls it. */
export type Tool = {
  name: string;
  title: string;
  description: string;
  operation: OperationSpec;
  anyone: boolean;
  input: z.ZodType;
  /** The structured result's schema; none for a result that is not JSON (an image). */
  output: z.ZodType | undefined;
  annotations: ToolAnnotations;
  /** The tool's caller, then the operation's checks and the capability through runOperation (lib/api/pipeline.ts; see callTool). */
  call(args: unknown, context: CallContext): Promise<CallToolResult>;
};

/**
 * Declares an MCP tool as a door to an operation (lib/<capability>/operations.ts): it names the
 * operation and says, for agents, what the tool does; the input is the operation's path parameters
 * and body or query, the output its success body, the title its summary, the write budget its
 * write flag. A call checks the caller (a tool that needs an account refuses a call without
 * one), then runs runOperation's order (lib/api/pipeline.ts), as the HTTP route does: the scope,
 * the write budget, the input's validation (the HTTP API's sentences) and the shape of the path's
 * ids, then the capability.
 */
export function defineTool<
  const Op extends OperationSpec,
  Output extends SuccessSchema<Op> = SuccessSchema<Op>,
  Extra extends ExtraArguments = Record<never, never>,
  const Taken extends FieldName<Op> = FieldName<Op>,
>(operation: Op, wording: AccountToolWording<Op, Output, Extra, Taken>): Tool;
export function defineTool<
  const Op extends OperationSpec,
  Output extends SuccessSchema<Op> = SuccessSchema<Op>,
  Extra extends ExtraArguments = Record<never, never>,
  const Taken extends FieldName<Op> = FieldName<Op>,
>(operation: Op, wording: OpenToolWording<Op, Output, Extra, Taken>): Tool;
export function defineTool<
  Op extends OperationSpec,
  Output extends SuccessSchema<Op>,
  Extra extends ExtraArguments,
  Taken extends FieldName<Op>,
>(operation: Op, wording: AccountToolWording<Op, Output, Extra, Taken> | OpenToolWording<Op, Output, Extra, Taken>): Tool {
  const input = toolInput(operation, wording.fields, wording.required ?? [], wording.arguments ?? {});
  const where = operation.body ? "body" : "query";
  return {
    name: wording.name,
    title: wording.title ?? operation.summary,
    description: wording.description,
    operation,
    anyone: wording.anyone ?? false,
    input,
    output: toolOutput(wording.name, operation, wording.output),
    annotations: annotations(operation, wording.hints),
    async call(args, context) {
      const run = runner(wording, context);
      return runOperation({
        principal: context.principal,
        request: context.request,
        operation,
        input: () => {
          const parsed = validate(input, args ?? {}, where) as RunInput<Op, Extra, Taken>;
          recordIdParams(pathParams(operation, parsed));
          return parsed;
        },
        call: async (parsed) => asToolResult(await run(parsed)),
      });
    },
  };
}

export const AUTHENTICATE_MESSAGE =
  "This tool needs an account: connect with OAuth (this server's protected resource metadata is at " +
  "/.well-known/oauth-protected-resource/api/mcp), or send an Authorization: Bearer <API key or session token> " +
  "header. Without credentials you can list the tools and buy a link with buy_link.";

/** The tool's capability call, bound to its caller; a tool that needs an account refuses a caller without one here, first. */
function runner<Op, Output, Extra extends ExtraArguments, Taken extends FieldName<Op>>(
  wording: AccountToolWording<Op, Output, Extra, Taken> | OpenToolWording<Op, Output, Extra, Taken>,
  context: CallContext,
) {
  if (wording.anyone) return (input: RunInput<Op, Extra, Taken>) => wording.run(input, context);
  const { principal } = context;
  if (!principal) throw unauthenticated(AUTHENTICATE_MESSAGE);
  return (input: RunInput<Op, Extra, Taken>) => wording.run(input, { ...context, principal });
}

/**
 * The operation's body or query schema as it is; with path parameters (or fields the tool takes
 * or requires, or arguments of its own), one closed object of the path's ids followed by the
 * body's or query's fields (those the tool takes) and the tool's own: what RunInput spells out
 * for the compiler.
 */
function toolInput(
  operation: OperationSpec,
  taken: readonly string[] | undefined,
  required: readonly string[],
  extra: ExtraArguments,
): z.ZodType {
  const fields = operation.body ?? operation.query;
  const path = (operation.parameters ?? []).filter((parameter) => parameter.in === "path");
  const asDeclared = path.length === 0 && !taken && required.length === 0 && Object.keys(extra).length === 0;
  if (asDeclared) return fields ?? z.strictObject({});
  if (fields && !(fields instanceof z.ZodObject)) throw new Error(`${operation.operationId}: a tool takes an object's fields`);
  const declared = { ...fields?.shape };
  const shape = taken ? Object.fromEntries(taken.map((name) => [name, declared[name]!])) : declared;
  for (const name of required) shape[name] = requiredField(shape[name] as z.ZodOptional<z.ZodType>);
  return z.strictObject({
    ...Object.fromEntries(path.map((parameter) => [parameter.name, idArgument(parameter)])),
    ...shape,
    ...extra,
  });
}

/** A field the operation leaves optional, required, with what the operation says of it (its description). */
function requiredField(field: z.ZodOptional<z.ZodType>): z.ZodType {
  const said = z.globalRegistry.get(field);
  return said ? field.unwrap().meta(said) : field.unwrap();
}

/** A path parameter as an argument: a string, held to the id's shape after validation as the path holds it. */
function idArgument(parameter: ParameterSpec) {
  return z.string({ error: "must be a string" }).min(1, "must not be empty").meta({ description: parameter.description });
}

/** The arguments that stand for the operation's path parameters ({id}): held to the same shape as in a path. */
function pathParams(operation: OperationSpec, input: unknown): Record<string, unknown> {
  const names = (operation.parameters ?? []).filter((parameter) => parameter.in === "path").map((parameter) => parameter.name);
  return Object.fromEntries(names.map((name) => [name, (input as Record<string, unknown>)[name]]));
}

/** The success body the tool answers with: the one the operation declares, or the one the tool names among several. */
function toolOutput(tool: string, operation: OperationSpec, named: z.ZodType | undefined): z.ZodType | undefined {
  const declared = new Set(
    Object.entries(operation.responses)
      .filter(([status]) => Number(status) >= 200 && Number(status) < 300)
      .flatMap(([, response]) => [response.body ?? []].flat()),
  );
  if (named) {
    if (!declared.has(named)) throw new Error(`${tool}: its output is not a success body of ${operation.operationId}`);
    return named;
  }
  if (declared.size > 1) throw new Error(`${tool}: ${operation.operationId} answers with several bodies; name the tool's output`);
  return [...declared][0];
}

function annotations(operation: OperationSpec, hints: ToolHints = {}): ToolAnnotations {
  if (operation.method === "get") return { readOnlyHint: true, openWorldHint: hints.openWorld ?? false };
  return {
    readOnlyHint: false,
    destructiveHint: hints.destructive ?? true,
    idempotentHint: hints.idempotent ?? false,
    openWorldHint: hints.openWorld ?? false,
  };
}

/**
 * A tools/call: the tool's checks and capability. A domain error becomes an error result
 * carrying the sentence the HTTP API answers with.
 */
export async function callTool(tool: Tool, args: unknown, context: CallContext): Promise<CallToolResult> {
  try {
    return await tool.call(args, context);
  } catch (error) {
    if (error instanceof DomainError) return errorResult(error.message, error.details);
    log().error({ err: error, tool: tool.name }, "unhandled MCP tool error");
    return errorResult(INTERNAL_ERROR_MESSAGE, {});
  }
}

/** A CallToolResult as it is; a JSON value as the structured result, with its text. */
function asToolResult(value: unknown): CallToolResult {
  const result = value as Partial<CallToolResult>;
  if (Array.isArray(result.content)) return result as CallToolResult;
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

/** The sentence first; the HTTP error body after it when the failure carries more (a 402's price and ways to pay). */
function errorResult(message: string, details: Record<string, unknown>): CallToolResult {
  const content: CallToolResult["content"] = [{ type: "text", text: message }];
  if (Object.keys(details).length > 0) content.push({ type: "text", text: JSON.stringify({ error: message, ...details }) });
  return { isError: true, content };
}

/** The tool as tools/list describes it, its schemas converted from zod as the OpenAPI document converts them, made portable. */
export function describeTool(tool: Tool): McpTool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toolSchema(tool.input, "input") as McpTool["inputSchema"],
    ...(tool.output && { outputSchema: toolSchema(tool.output, "output") as McpTool["outputSchema"] }),
    annotations: tool.annotations,
  };
}

/**
 * A tool's JSON Schema. MCP wants an object schema at the root; zod writes a schema with an id as
 * a reference into $defs, so the root is inlined and the other definitions stay beside it. Zod
 * spells a nullable field as a type array (["string", "null"]), which clients that map tool
 * schemas onto a single-type dialect reject (the MCP Inspector's --strict warns), so each type
 * array becomes anyOf branches of one type each.
 */
export function toolSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const {
    $schema: _dialect,
    $ref,
    $defs = {},
    ...rest
  } = z.toJSONSchema(schema, { target: "draft-2020-12", io }) as Record<string, unknown> & {
    $ref?: string;
    $defs?: Record<string, Record<string, unknown>>;
  };
  const rootId = $ref?.replace("#/$defs/", "");
  const { [rootId ?? ""]: root, ...others } = $defs;
  const inlined = root ? { ...rest, ...root } : rest;
  return splitTypeArrays(Object.keys(others).length > 0 ? { ...inlined, $defs: others } : inlined) as Record<string, unknown>;
}

const SUBSCHEMA_MAPS = ["properties", "patternProperties", "$defs", "dependentSchemas"];
const SUBSCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SUBSCHEMAS = ["items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"];

/** The schema with every `type` array, at any depth, written as anyOf branches of one type each. */
function splitTypeArrays(node: unknown): unknown {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return node;
  const { type, ...schema } = node as Record<string, unknown>;
  for (const key of SUBSCHEMA_MAPS) {
    const map = schema[key] as Record<string, unknown> | undefined;
    if (map) schema[key] = Object.fromEntries(Object.entries(map).map(([name, child]) => [name, splitTypeArrays(child)]));
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = schema[key] as unknown[] | undefined;
    if (list) schema[key] = list.map(splitTypeArrays);
  }
  for (const key of SUBSCHEMAS) if (key in schema) schema[key] = splitTypeArrays(schema[key]);
  if (!Array.isArray(type)) return type === undefined ? schema : { type, ...schema };
  const branches = type.map((one) => ({ type: one }));
  if (!schema.anyOf) return { anyOf: branches, ...schema };
  const { anyOf, ...others } = schema;
  return { allOf: [{ anyOf }, { anyOf: branches }], ...others };
}
