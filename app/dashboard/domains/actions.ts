"use server";

import { type ActionResult, dashboardAction } from "@/lib/api/dashboard";
import * as domainOperations from "@/lib/domains/operations";
import { addDomain, getDomain, removeDomain, updateDomain, verifyDomain } from "@/lib/domains/service";
import { withScheme } from "@/lib/links/typed-destination";
import { revalidatePath } from "next/cache";
import { optional, required } from "../form-fields";

export type DomainState = ActionResult<string> | null;

export async function addDomainAction(_previous: DomainState, form: FormData): Promise<DomainState> {
  const result = await dashboardAction(
    domainOperations.addDomain,
    { hostname: required(form, "hostname") },
    async (principal, body) => {
      const domain = await addDomain(principal, body);
      return `Added ${domain.hostname}: create the records listed under it at your DNS provider.`;
    },
    { hostname: "The hostname" },
  );
  if (result.ok) revalidatePath("/dashboard/domains");
  return result;
}

export async function verifyDomainAction(_previous: DomainState, form: FormData): Promise<DomainState> {
  const id = required(form, "id");
  const result = await dashboardAction(domainOperations.verifyDomain, undefined, async (principal) => {
    const domain = await verifyDomain(principal, id);
    return `Checked ${domain.hostname} just now: ${domain.verified ? "verified" : "not verified yet"}, status ${domain.hostname_status}.`;
  });
  if (result.ok) revalidatePath("/dashboard/domains");
  return result;
}

/** Where the domain's own address and its unknown short links send visitors; a field left blank sends them to our plain page. */
export async function updateDomainAction(_previous: DomainState, form: FormData): Promise<DomainState> {
  const id = required(form, "id");
  const destination = (name: string) => {
    const typed = optional(form, name);
    return typed === undefined ? null : withScheme(typed);
  };
  const result = await dashboardAction(
    domainOperations.updateDomain,
    { root_destination: destination("root_destination"), not_found_destination: destination("not_found_destination") },
    async (principal, body) => {
      const domain = await updateDomain(principal, id, body);
      return `Saved where visitors of ${domain.hostname} go.`;
    },
    { root_destination: "The address for the domain itself", not_found_destination: "The address for unknown short links" },
  );
  if (result.ok) revalidatePath("/dashboard/domains");
  return result;
}

/** Answers the removed domain's hostname, as the server knows it, for the page to name (its card is gone). */
export async function removeDomainAction(_previous: DomainState, form: FormData): Promise<DomainState> {
  const id = required(form, "id");
  return dashboardAction(domainOperations.removeDomain, undefined, async (principal) => {
    const { hostname } = await getDomain(principal, id);
    await removeDomain(principal, id);
    return hostname;
  });
}
