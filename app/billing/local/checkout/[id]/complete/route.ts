import { completeLocalCheckout, localCheckoutPath } from "@/lib/billing/local-provider";
import { seeOther } from "@/lib/http/respond";
import { handleErrors } from "@/lib/http/route";

type Context = { params: Promise<{ id: string }> };

/** The checkout page's "Complete purchase" form. */
export async function POST(_request: Request, { params }: Context): Promise<Response> {
  return handleErrors(async () => {
    const { id } = await params;
    await completeLocalCheckout(id);
    return seeOther(localCheckoutPath(id));
  });
}
