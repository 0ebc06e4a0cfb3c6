import { setLinkStatus } from "@/lib/abuse/operations";
import { changeLinkStatus } from "@/lib/abuse/service";
import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { notFound } from "@/lib/http/errors";

/** The operator moves a link between statuses: into abuse with a reason, and back out after review. */
export const PUT = apiRoute(setLinkStatus, async ({ params, body, reply }) => {
  const link = await changeLinkStatus(params.id, body);
  if (!link) throw notFound("No link with this id exists.");
  return reply(200, { id: link.id, status: link.status, abuse_reason: link.abuseReason });
});

export const { GET, POST, PATCH, DELETE, OPTIONS } = otherMethods({ PUT });
