import { otherMethods } from "@/lib/api/methods";
import { apiRoute } from "@/lib/api/route";
import { changeLocalPlan } from "@/lib/billing/local-provider";
import { planChoiceSchema } from "@/lib/billing/schemas";
import { seeOther } from "@/lib/http/respond";

const changePlanForm = { auth: "public", path: "/billing/local/portal/{id}/change", form: planChoiceSchema } as const;

/** The portal page's plan forms (fields plan and interval): change plan, or subscribe again after a lapse. */
export const POST = apiRoute(changePlanForm, async ({ params, body }) => seeOther(await changeLocalPlan(params.id, body)));

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
