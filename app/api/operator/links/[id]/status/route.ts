import { setLinkStatus } from "@/lib/abuse/operations";
import { changeLinkStatus } from "@/lib/abuse/service";
import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { notFound } from "@/lib/http/errors";
import { json } from "@/lib/http/respond";

/** The operator moves a link between statuses: into abuse with a reason, and back out after review. */
export const PUT = apiRoute(setLinkStatus, async ({ params, body }) => {
  const link = await changeLinkStatus(params.id, body);
  if (!link) throw notFound("No link with this id exists.");
  return json({ id: link.id, status: link.status, abuse_reason: link.abuseReason });
});

export const { GET, POST, PATCH, DELETE, OPTIONS } = otherMethods({ PUT });
