import { WORKSPACE_COOKIE } from "@/lib/api/dashboard";
import { config } from "@/lib/config";
import { withScheme } from "@/lib/links/typed-destination";
import { utmFromForm, withUtm } from "@/lib/utm/parameters";
import { cookies } from "next/headers";

/** A field of the form; null when what arrived is not a form (an action can be called with anything). */
export function fieldOf(form: FormData, name: string): FormDataEntryValue | null {
  return form instanceof FormData ? form.get(name) : null;
}

/** A form's blank optional field is absent, as a JSON client would leave it out. */
export function optional(form: FormData, name: string): string | undefined {
  const value = fieldOf(form, name);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

export function required(form: FormData, name: string): string {
  const value = fieldOf(form, name);
  return typeof value === "string" ? value : "";
}

/** The destination as typed (https:// added when it has no scheme), with the form's UTM fields, if it has them, in its query. */
export function typedDestination(form: FormData): string {
  return withUtm(
    withScheme(required(form, "destination")),
    utmFromForm((name) => fieldOf(form, name)),
  );
}

/** The tags field as the form has it, names separated by commas; blank when none. */
export function typedTags(form: FormData): string[] {
  return required(form, "tags")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
}

/** From now on the dashboard acts on this workspace (membership is checked again on every request). */
export async function chooseWorkspace(workspaceId: string): Promise<void> {
  (await cookies()).set(WORKSPACE_COOKIE, workspaceId, {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure: config().BASE_URL.startsWith("https:"),
  });
}
