"use server";

import { inCustomerWords } from "@/lib/api/customer-words";
import { dashboardContext } from "@/lib/api/dashboard";
import { DomainError } from "@/lib/http/errors";
import { log } from "@/lib/log";
import { decideConsent } from "@/lib/oauth/service";
import { redirect } from "next/navigation";

export type ConsentState = { error: string } | null;

/**
 * The person's answer on the consent page, as the signed-in dashboard user. Allowed or not, the
 * browser goes back to the app with the answer (a server action's redirect is followed by the
 * page's script, so the page's form-action rule does not stand in the way of the app's address).
 */
export async function decideConsentAction(_previous: ConsentState, form: FormData): Promise<ConsentState> {
  const context = await dashboardContext();
  if (!context) return { error: "Your session has ended; sign in again." };
  let location: string;
  try {
    location = await decideConsent(context.user.userId, String(form.get("request") ?? ""), {
      allow: form.get("decision") === "allow",
      workspaceId: String(form.get("workspace") ?? ""),
      scopes: form.getAll("scope").map(String),
    });
  } catch (error) {
    if (error instanceof DomainError) return { error: inCustomerWords(error.message) };
    log().error({ err: error }, "unhandled consent error");
    return { error: "Something went wrong on our side; nothing was allowed. Please try again." };
  }
  redirect(location);
}
