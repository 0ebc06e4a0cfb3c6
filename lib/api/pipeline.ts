import { bearerChallenge, DomainError } from "@/lib/http/errors";
import type { RouteSpec } from "@/lib/http/operation";
import { enforceClientWriteLimit, enforceWriteLimit } from "@/lib/http/write-limit";
import { invalidationsSent } from "@/lib/links/invalidation";
import type { Principal } from "@/lib/workspaces/types";

/** What the pipeline reads of an operation's declaration: the OAuth scope it needs and whether it is a write. */
export type DeclaredChecks = Pick<RouteSpec, "scope" | "write">;

/**
 * Who calls: the principal the door authenticated, or null for a caller without an account (an
 * agent buying a link), whose write budget is its client address's, so it comes with its request.
 */
type Caller = { principal: Principal; request?: Request } | { principal: Principal | null; request: Request };

/** One call of an operation through a door. */
export type OperationCall<Input, Value> = Caller & {
  operation: DeclaredChecks;
  /**
   * The call's input, read the door's way (a request's body, query and path; a form; a tool's
   * arguments) and held to the declaration's schemas in the door's sentences.
   */
  input: () => Input | Promise<Input>;
  /** The capability call. */
  call: (input: Input) => Promise<Value>;
};

/**
 * Every operation runs here, whichever door it comes through (apiRoute in lib/api/route.ts,
 * dashboardAction in lib/api/dashboard.ts, an MCP tool's call in lib/mcp/tool.ts), and the order
 * is always the same:
 *
 * 1. the caller's OAuth scope: an app connected with OAuth needs the scope the operation names
 *    (403 with RFC 6750's insufficient_scope challenge);
 * 2. the write budget, when the operation is a write: one per workspace, shared by its members,
 *    its key and every door; one per client address for a caller without an account (429);
 * 3. the input, read and validated by the door (400, 413, 415; a path's or a tool's ids that this
 *    service never issued, 404), so nothing unchecked reaches the capability and a refused call
 *    has already spent its write;
 * 4. the capability call;
 * 5. the link invalidations it queued, sent, whether it returned or threw after its change: every
 *    instance has dropped its cached copy before the caller hears the answer.
 *
 * Before it, each door authenticates its caller (the auth mode's credentials or deployment secret,
 * the dashboard's session cookie, a tool that needs an account); after it, each door turns the
 * value, or the DomainError any step threw, into its own answer (an HTTP status and `{ error }`, a
 * sentence in the customer's words beside its form field, an MCP error result).
 */
export async function runOperation<Input, Value>(run: OperationCall<Input, Value>): Promise<Value> {
  requireScope(run.principal, run.operation.scope);
  if (run.operation.write) await enforceWriteBudget(run);
  const input = await run.input();
  try {
    return await run.call(input);
  } finally {
    // Also when the capability fails after its change: the answer, a value or an error, comes after.
    await invalidationsSent();
  }
}

/**
 * A call that counts as several writes (a bulk create's further items) spends each further one,
 * during the capability call, from the same workspace budget as step 2.
 */
export async function enforceFurtherWrite(principal: Principal): Promise<void> {
  await enforceWriteLimit(principal.workspaceId);
}

/**
 * An app connected with OAuth calls only operations that name a scope its grant holds (403 with
 * RFC 6750's insufficient_scope challenge otherwise), or "any" (the MCP server, which checks each
 * tool's operation here too). Other callers are not asked: their role and the capability decide.
 */
function requireScope(principal: Principal | null, scope: RouteSpec["scope"]): void {
  const grant = principal?.kind === "session" ? principal.grant : undefined;
  if (!grant || scope === "any") return;
  if (!scope)
    throw new DomainError(
      "forbidden",
      "An app connected with OAuth cannot do this; it needs a person's session or the workspace's API key.",
      bearerChallenge("insufficient_scope"),
    );
  if (!grant.scopes.includes(scope))
    throw new DomainError(
      "forbidden",
      `This needs the ${scope} scope, which this app was not allowed; connect it again and allow ${scope}.`,
      bearerChallenge("insufficient_scope", scope),
    );
}

/** One budget per workspace, shared by its members and its key; callers without an account get one per client address. */
async function enforceWriteBudget({ principal, request }: Caller): Promise<void> {
  if (principal) await enforceWriteLimit(principal.workspaceId);
  else await enforceClientWriteLimit(request!);
}
