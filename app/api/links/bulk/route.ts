import { otherMethods } from "@/lib/api/methods";
import { apiRoute, statusOf } from "@/lib/api/route";
import { enforceWriteLimit } from "@/lib/http/write-limit";
import { bulkCreateLinks } from "@/lib/links/operations";
import { toLinkView } from "@/lib/links/present";
import { createLinks } from "@/lib/links/service";

/** The request's own write pays for the first item; each further item spends one more. */
export const POST = apiRoute(bulkCreateLinks, async ({ principal, body, reply }) => {
  const outcomes = await createLinks(principal, body.links, (index) =>
    index === 0 ? Promise.resolve() : enforceWriteLimit(principal.workspaceId),
  );
  const results = outcomes.map((outcome) =>
    "committed" in outcome
      ? { index: outcome.index, status: outcome.committed.created ? 201 : 200, link: toLinkView(outcome.committed.link) }
      : { index: outcome.index, status: statusOf(outcome.refusal), error: outcome.refusal.message },
  );
  return reply(200, { results });
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
