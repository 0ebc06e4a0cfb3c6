"use client";

import { Button } from "@/components/ui/button";
import { Confirm } from "@/components/ui/confirm";
import { TextField } from "@/components/ui/field";
import { errorFor } from "@/components/ui/field-error";
import { ActionOutcome } from "@/components/ui/outcome";
import { useRouter } from "next/navigation";
import { useActionState } from "react";
import { type DomainState, removeDomainAction, updateDomainAction, verifyDomainAction } from "./actions";

/** Verify now, and remove after a confirmation; for owners and admins (the page leaves it out for others). */
export function DomainActions({ id, hostname }: { id: string; hostname: string }) {
  const [checked, verify, verifying] = useActionState<DomainState, FormData>(verifyDomainAction, null);
  const router = useRouter();
  const [removal, remove, removing] = useActionState<DomainState, FormData>(async (previous, form) => {
    const removed = await removeDomainAction(previous, form);
    // The page is drawn afresh without the domain, and names it in its notice.
    if (removed?.ok) router.replace(`/dashboard/domains?removed=${encodeURIComponent(removed.value)}`);
    return removed;
  }, null);
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap gap-2">
        <form action={verify}>
          <input type="hidden" name="id" value={id} />
          <Button type="submit" disabled={verifying}>
            {verifying ? "Checking…" : "Verify now"}
            <span className="sr-only"> {hostname}</span>
          </Button>
        </form>
        <Confirm
          label="Remove"
          what={hostname}
          question={
            `Remove ${hostname} from this workspace? No more links can be created on it. ` +
            "A domain that carries links cannot be removed: they keep resolving."
          }
          confirm={`Yes, remove ${hostname}`}
          action={remove}
          fields={{ id }}
          pending={removing}
        />
      </div>
      <ActionOutcome state={checked} />
      {removal && !removal.ok && <ActionOutcome state={removal} />}
    </div>
  );
}

/**
 * Where the domain's own address and its unknown short links send visitors: owners and admins
 * change them, everyone else reads them. Blank: our plain page. An existing short link always
 * answers for itself.
 */
export function DomainDestinations({
  id,
  hostname,
  root,
  notFound,
  manages,
}: {
  id: string;
  hostname: string;
  root: string | null;
  notFound: string | null;
  manages: boolean;
}) {
  const [saved, save, saving] = useActionState<DomainState, FormData>(updateDomainAction, null);
  const fields = [
    {
      name: "root_destination",
      label: `When someone opens ${hostname} itself`,
      value: root,
      hint: "Blank: a plain page saying the address serves short links.",
    },
    {
      name: "not_found_destination",
      label: `When someone opens a short link ${hostname} does not have`,
      value: notFound,
      hint: "Blank: a plain page saying the link does not exist. Your short links always go where they should, even typed in another case.",
    },
  ];
  if (!manages) {
    return (
      <dl className="m-0 space-y-2 text-sm">
        {fields.map((field) => (
          <div key={field.name}>
            <dt className="font-semibold">{field.label}</dt>
            <dd className="m-0 break-all">{field.value ?? "Our plain page"}</dd>
          </div>
        ))}
      </dl>
    );
  }
  return (
    <form action={save} className="space-y-3" aria-label={`Where visitors of ${hostname} go`}>
      <input type="hidden" name="id" value={id} />
      {fields.map((field) => (
        <TextField
          key={field.name}
          id={`${field.name}-${id}`}
          label={field.label}
          help={field.hint}
          error={errorFor(field.name, saved)}
          name={field.name}
          type="text"
          inputMode="url"
          defaultValue={field.value ?? ""}
          placeholder="https://example.com/"
        />
      ))}
      <Button type="submit" disabled={saving}>
        {saving ? "Saving…" : "Save where visitors go"}
        <span className="sr-only"> for {hostname}</span>
      </Button>
      <ActionOutcome state={saved?.ok || !saved?.field ? saved : null} />
    </form>
  );
}
