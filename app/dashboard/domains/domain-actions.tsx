"use client";

import { useRouter } from "next/navigation";
import { useActionState, useRef, useState } from "react";
import { ActionOutcome } from "@/components/ui/outcome";
import { buttonClass } from "@/components/ui/styles";
import { type DomainState, removeDomainAction, verifyDomainAction } from "../actions";

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
  const [confirming, setConfirming] = useState(false);
  const removeButton = useRef<HTMLButtonElement>(null);
  const cancel = () => {
    setConfirming(false);
    // Back to the button the confirmation replaced, once it is drawn again.
    requestAnimationFrame(() => removeButton.current?.focus());
  };
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
        {!confirming && (
          <button type="button" ref={removeButton} className={buttonClass.danger} onClick={() => setConfirming(true)}>
            Remove<span className="sr-only"> {hostname}</span>
          </button>
        )}
      </div>
      {confirming && (
        <form action={remove} className="space-y-2 rounded-md border border-red-300 p-3 dark:border-red-800">
          <input type="hidden" name="id" value={id} />
          <p className="m-0 text-sm">
            Remove {hostname} from this workspace? No more links can be created on it. A domain that carries links cannot be
            removed: they keep resolving.
          </p>
          <div className="flex flex-wrap gap-2">
            {/* The confirmation replaces the button that opened it, so the keyboard's focus moves here. */}
            <button type="submit" className={buttonClass.danger} disabled={removing} autoFocus>
              Yes, remove {hostname}
            </button>
            <button type="button" className={buttonClass.secondary} onClick={cancel}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <ActionOutcome state={checked} />
      {removal && !removal.ok && <ActionOutcome state={removal} />}
    </div>
  );
}
