import { requireOperatorToken } from "@/lib/abuse/operator-token";
import { linkStatusChangeBody } from "@/lib/abuse/schemas";
import { changeLinkStatus } from "@/lib/abuse/service";
import { readJsonBody, validate } from "@/lib/http/body";
import { notFound } from "@/lib/http/errors";
import { json } from "@/lib/http/respond";
import { handleErrors } from "@/lib/http/route";

type Context = { params: Promise<{ id: string }> };

/** The operator moves a link between statuses: into abuse with a reason, and back out after review. */
export function PUT(request: Request, context: Context): Promise<Response> {
  return handleErrors(async () => {
    requireOperatorToken(request);
    const change = validate(linkStatusChangeBody, await readJsonBody(request), "body");
    const link = await changeLinkStatus((await context.params).id, change);
    if (!link) throw notFound("No link with this id exists.");
    return json({ id: link.id, status: link.status, abuse_reason: link.abuseReason });
  });
}
