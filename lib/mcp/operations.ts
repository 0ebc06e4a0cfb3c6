import { defineOperation, failure } from "@/lib/http/operation";
import { z } from "zod";
import { TOOLS } from "./toolset";

const jsonRpcMessage = z
  .looseObject({
    jsonrpc: z.literal("2.0", { error: 'must be "2.0"' }),
    method: z.string().optional().meta({ description: "initialize, tools/list, tools/call, … (absent on a response)" }),
    id: z.union([z.string(), z.number()]).optional().meta({ description: "absent on a notification" }),
    params: z.looseObject({}).optional(),
  })
  .meta({ id: "JsonRpcMessage", description: "One MCP message (JSON-RPC 2.0)." });

const jsonRpcResponse = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number(), z.null()]),
    result: z.looseObject({}).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({ id: "JsonRpcResponse", description: "The answer to one MCP request (JSON-RPC 2.0)." });

export const callMcp = defineOperation({
  method: "post",
  path: "/api/mcp",
  auth: "optional_workspace",
  scope: "any",
  crossOrigin: true,
  operationId: "callMcp",
  summary: "MCP server (Streamable HTTP)",
  description:
    `A Model Context Protocol server over Streamable HTTP, stateless (no session id; every request ` +
    `stands alone, so any instance answers). Send each JSON-RPC message as a POST with Accept: ` +
    `application/json, text/event-stream (without both, 406); the answer is JSON. Tools: ` +
    `${TOOLS.map((tool) => tool.name).join(", ")}; each runs the same checks, in the same order, ` +
    `with the same error sentences, as the HTTP operation it mirrors, and a write tool counts ` +
    `against the same write budget. With Authorization: Bearer (an OAuth access token, an API key ` +
    `or a session token; X-Workspace-Id selects a workspace) the tools act on that workspace, ` +
    `within an OAuth token's scopes; a credential that is sent but not valid is refused here ` +
    `with 401. Without credentials an agent may list the tools and call buy_link, which answers ` +
    `with a machine-payment challenge (MPP and x402, in the tool result) and, paid, returns the ` +
    `PaidLink; a call of any other tool is answered 401 with the OAuth challenge (WWW-Authenticate ` +
    `with resource_metadata). How to connect: /docs/agents.`,
  tag: "Agents",
  body: jsonRpcMessage,
  responses: {
    200: {
      description: "The JSON-RPC answer; a failed tool call is a result with isError: true carrying the HTTP API's sentence.",
      body: jsonRpcResponse,
      transport: "mcp",
    },
    202: { description: "A notification or a response from the client was accepted; no body." },
    400: failure("The body is not JSON or not a JSON-RPC 2.0 message."),
    406: failure("The Accept header does not list both application/json and text/event-stream."),
    415: failure("The body is not sent as application/json."),
  },
});
