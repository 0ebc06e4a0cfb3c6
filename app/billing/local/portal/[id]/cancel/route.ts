import { cancelLocalSubscription, localPortalPath } from "@/lib/billing/local-provider";
import { seeOther } from "@/lib/http/respond";
import { handleErrors } from "@/lib/http/route";

type Context = { params: Promise<{ id: string }> };

/** The portal page's "Cancel subscription" form. */
export async function POST(_request: Request, { params }: Context): Promise<Response> {
  return handleErrors(async () => {
    const { id } = await params;
    await cancelLocalSubscription(id);
    return seeOther(localPortalPath(id));
  });
}
