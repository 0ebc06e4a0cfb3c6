"use client";

import { useRouter } from "next/navigation";
import { useActionState } from "react";
import { Confirm } from "@/components/ui/confirm";
import { ActionOutcome } from "@/components/ui/outcome";
import { buttonClass } from "@/components/ui/styles";
import { type DomainState, removeDomainAction, verifyDomainAction } from "./actions";

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
          <button type="submit" className={buttonClass.secondary} disabled={verifying}>
            {verifying ? "Checking…" : "Verify now"}
            <span className="sr-only"> {hostname}</span>
          </button>
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
