import { toLinkView } from "@/lib/links/present";
import { createLinks } from "@/lib/links/service";
import type { Principal } from "@/lib/workspaces/types";
import { enforceFurtherWrite } from "./pipeline";
import { statusOf } from "./route";

/**
 * POST /api/links/bulk and bulk_create_links: each item's outcome with the status and sentence
 * its own POST /api/links would have had. The call's own write (spent by runOperation) pays for the
 * first item; each further item spends one more (enforceFurtherWrite).
 */
export async function createLinksInBulk(principal: Principal, input: { links: readonly unknown[] }) {
  const outcomes = await createLinks(principal, input.links, (index) =>
    index === 0 ? Promise.resolve() : enforceFurtherWrite(principal),
  );
  const results = outcomes.map((outcome) =>
    "committed" in outcome
      ? { index: outcome.index, status: outcome.committed.created ? 201 : 200, link: toLinkView(outcome.committed.link) }
      : { index: outcome.index, status: statusOf(outcome.refusal), error: outcome.refusal.message },
  );
  return { results };
}
