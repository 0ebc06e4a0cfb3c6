import { changeLocalPlan } from "@/lib/billing/local-provider";
import { planChoiceSchema } from "@/lib/billing/schemas";
import { readTextBody, validate } from "@/lib/http/body";
import { seeOther } from "@/lib/http/respond";
import { handleErrors } from "@/lib/http/route";

type Context = { params: Promise<{ id: string }> };

const MAX_FORM_BYTES = 1024;

/** The portal page's plan forms (fields plan and interval): change plan, or subscribe again after a lapse. */
export async function POST(request: Request, { params }: Context): Promise<Response> {
  return handleErrors(async () => {
    const { id } = await params;
    const form = Object.fromEntries(new URLSearchParams(await readTextBody(request, MAX_FORM_BYTES)));
    return seeOther(await changeLocalPlan(id, validate(planChoiceSchema, form, "body")));
  });
}
