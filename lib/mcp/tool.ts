import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { enforceWriteBudget, recordIdParams } from "@/lib/api/route";
import { validate } from "@/lib/http/body";
import { DomainError, unauthenticated } from "@/lib/http/errors";
import type { OperationSpec } from "@/lib/http/operation";
import { INTERNAL_ERROR_MESSAGE } from "@/lib/http/respond";
import { log } from "@/lib/log";
import type { Principal } from "@/lib/workspaces/types";

/** What a tool call knows: the caller the HTTP request authenticated (null without credentials), that request, and the call's _meta. */
export type CallContext = { principal: Principal | null; request: Request; meta: Record<string, unknown> | undefined };

type Caller<Anyone extends boolean> = Anyone extends true ? Principal | null : Principal;

/**
 * One MCP tool, declared against the HTTP operation it mirrors: the operation's write flag
 * decides the write budget, its validation sentences are the tool's, and the input and output
 * schemas are the zod schemas the operation validates and answers with.
 */
export type ToolSpec<Input extends z.ZodType = z.ZodType, Anyone extends boolean = boolean> = {
  name: string;
  title: string;
  description: string;
  operation: OperationSpec;
  /** True only for buy_link: callable without credentials. */
  anyone: Anyone;
  input: Input;
  /** The structured result's schema; none for a result that is not JSON (an image). */
  output?: z.ZodType;
  annotations?: McpTool["annotations"];
  /** A JSON value becomes the structured result; a CallToolResult is sent as it is. */
  run(input: z.output<Input>, caller: Caller<Anyone>, context: CallContext): Promise<CallToolResult | object>;
};

export function defineTool<Input extends z.ZodType, Anyone extends boolean>(
  spec: ToolSpec<Input, Anyone>,
): ToolSpec<Input, Anyone> {
  return spec;
}

export const AUTHENTICATE_MESSAGE =
  "This tool needs an account: connect to the MCP endpoint with an Authorization: Bearer <API key or session token> header. Without credentials you can list the tools and buy a link with buy_link.";

/**
 * A tools/call, checked in the HTTP routes' order (lib/api/route.ts): the caller (authenticated
 * for the whole HTTP request; here, whether this tool needs one), the write budget, the input's
 * validation, the shape of the ids the path would carry, then the capability. A domain error
 * becomes an error result carrying the sentence the HTTP API answers with.
 */
export async function callTool(tool: ToolSpec, args: unknown, context: CallContext): Promise<CallToolResult> {
  try {
    if (!tool.anyone && !context.principal) throw unauthenticated(AUTHENTICATE_MESSAGE);
    if (tool.operation.write) await enforceWriteBudget(context.principal, context.request);
    const input = validate(tool.input, args ?? {}, tool.operation.body ? "body" : "query");
    recordIdParams(pathParams(tool.operation, input));
    const result = await tool.run(input, context.principal as Principal, context);
    return isToolResult(result) ? result : structured(result);
  } catch (error) {
    if (error instanceof DomainError) return errorResult(error.message, error.details);
    log().error({ err: error, tool: tool.name }, "unhandled MCP tool error");
    return errorResult(INTERNAL_ERROR_MESSAGE, {});
  }
}

/** The arguments that stand for the operation's path parameters ({id}): held to the same shape as in a path. */
function pathParams(operation: OperationSpec, input: unknown): Record<string, unknown> {
  const names = (operation.parameters ?? []).filter((parameter) => parameter.in === "path").map((parameter) => parameter.name);
  return Object.fromEntries(names.map((name) => [name, (input as Record<string, unknown>)[name]]));
}

function isToolResult(value: object): value is CallToolResult {
  return Array.isArray((value as { content?: unknown }).content);
}

function structured(value: object): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

/** The sentence first; the HTTP error body after it when the failure carries more (a 402's price and ways to pay). */
function errorResult(message: string, details: Record<string, unknown>): CallToolResult {
  const content: CallToolResult["content"] = [{ type: "text", text: message }];
  if (Object.keys(details).length > 0) content.push({ type: "text", text: JSON.stringify({ error: message, ...details }) });
  return { isError: true, content };
}

/** The tool as tools/list describes it, its schemas converted from zod as the OpenAPI document converts them. */
export function describeTool(tool: ToolSpec): McpTool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: objectSchema(tool.input, "input") as McpTool["inputSchema"],
    ...(tool.output && { outputSchema: objectSchema(tool.output, "output") as McpTool["outputSchema"] }),
    ...(tool.annotations && { annotations: tool.annotations }),
  };
}

/**
 * MCP wants an object schema at the root; zod writes a schema with an id as a reference into
 * $defs, so the root is inlined and the other definitions stay beside it.
 */
export function objectSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
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
  return Object.keys(others).length > 0 ? { ...inlined, $defs: others } : inlined;
}
