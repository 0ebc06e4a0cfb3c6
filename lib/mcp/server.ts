import { unauthenticated } from "@/lib/http/errors";
import { json } from "@/lib/http/respond";
import type { Principal } from "@/lib/workspaces/types";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { AUTHENTICATE_MESSAGE, callTool, describeTool } from "./tool";
import { TOOLS } from "./toolset";

const SERVER_INFO = { name: "permalink", title: "Permalink: permanent short links and QR codes", version: "1.0.0" };

const INSTRUCTIONS = [
  "Permanent short links and QR codes: a code that has been issued never stops resolving, whatever " +
    "happens to its destination, the subscription or the link's archiving.",
  "Connected with OAuth, or with an Authorization: Bearer header (an API key or a session token), the tools act on that " +
    "workspace. Without credentials, calling another tool answers HTTP 401 with the OAuth challenge; call buy_link to buy a link with a machine payment (MPP or x402); its " +
    "first purchase returns an API key to connect with.",
].join(" ");

const TOOLS_BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));

/**
 * One MCP exchange, stateless: a server and a Streamable HTTP transport live for this request
 * only, so any instance can answer any request and nothing is kept between them. The caller was
 * authenticated by the route wrapper for the whole request (null: no credentials).
 *
 * The SDK's low-level Server, not McpServer.registerTool: registerTool takes zod 4 schemas, but it
 * validates a call's arguments itself before the tool runs (before the caller and the write budget
 * are checked, and in its own words rather than the HTTP API's sentences), lists a schema with an
 * id as a bare $ref (which the SDK's own Client refuses: the root must be an object) and writes
 * nullable fields as type arrays. See docs/agents.md.
 */
export async function serveMcp(request: Request, principal: Principal | null, message: unknown): Promise<Response> {
  if (!principal) challengeAnAccountToolCall(message);
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map(describeTool) }));
  server.setRequestHandler(CallToolRequestSchema, ({ params }) => {
    const tool = TOOLS_BY_NAME.get(params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `There is no tool named "${params.name}"; tools/list names them.`);
    return callTool(tool, params.arguments, { principal, request, meta: params._meta });
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return asApiFailure(await transport.handleRequest(request, { parsedBody: message }));
  } finally {
    await server.close();
  }
}

/**
 * A call of a tool that needs an account, sent without credentials, is answered as HTTP 401 with
 * the Bearer challenge naming the protected resource metadata (RFC 9728), before MCP sees it: that
 * is how an MCP client with OAuth learns to connect (the MCP authorization specification). Listing
 * the tools and buy_link stay open to anyone.
 */
function challengeAnAccountToolCall(message: unknown): void {
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  if (method !== "tools/call" || typeof params?.name !== "string") return;
  const tool = TOOLS_BY_NAME.get(params.name);
  if (tool && !tool.anyone) throw unauthenticated(AUTHENTICATE_MESSAGE);
}

/**
 * The transport's own HTTP refusals (406 without both media types in Accept, 415 without a JSON
 * body, 400 for a message it cannot read) answer as every route does, `{ error }` with a sentence;
 * MCP clients read only the status and the text of a failed POST.
 */
async function asApiFailure(response: Response): Promise<Response> {
  if (response.status < 400) return response;
  const body = (await response.json().catch(() => null)) as { error?: { message?: unknown } } | null;
  const message =
    typeof body?.error?.message === "string" ? body.error.message : "The MCP transport could not handle this request";
  return json({ error: /[.!?]$/.test(message) ? message : `${message}.` }, response.status);
}
