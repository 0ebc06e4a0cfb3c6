"use client";

import { ActionOutcome } from "@/components/ui/outcome";
import { buttonClass, cardClass, inputClass, labelClass, mutedClass } from "@/components/ui/styles";
import { useActionState } from "react";
import { type LinkEditState, scanLimitAction } from "../actions";

type ScanLimit = { after: number; destination: string; scans: number } | null;

/** "After N scans, send visitors to X": the limit still to come, its count so far, and the form that sets or removes it. */
export function ScanLimitForm({ id, limit, canEdit }: { id: string; limit: ScanLimit; canEdit: boolean }) {
  const [state, action, pending] = useActionState<LinkEditState, FormData>(scanLimitAction, null);
  return (
    <section aria-labelledby="scan-limit-heading" className={cardClass}>
      <h2 id="scan-limit-heading" className="mt-0 text-lg">
        Scan limit
      </h2>
      <p className={mutedClass + " mt-0"}>
        {limit
          ? `${limit.scans} of ${limit.after} scans so far; after that, visitors go to ${limit.destination}. The code keeps working.`
          : "After a number of scans, send visitors somewhere else (a \u201csold out\u201d page, say). The code keeps working."}
      </p>
      {canEdit ? (
        <form action={action} className="grid gap-3 md:grid-cols-[10rem_1fr_auto_auto] md:items-end" key={JSON.stringify(state)}>
          <input type="hidden" name="id" value={id} />
          <div>
            <label htmlFor="scan-limit-after" className={labelClass}>
              After this many scans
            </label>
            <input
              id="scan-limit-after"
              name="after"
              inputMode="numeric"
              defaultValue={limit?.after ?? ""}
              className={inputClass}
            />
          </div>
          <div>
            <label htmlFor="scan-limit-destination" className={labelClass}>
              Then send visitors to
            </label>
            <input
              id="scan-limit-destination"
              name="destination"
              type="url"
              defaultValue={limit?.destination ?? ""}
              className={inputClass}
            />
          </div>
          <button type="submit" name="intent" value="set" className={buttonClass.primary} disabled={pending}>
            {limit ? "Start again" : "Set limit"}
          </button>
          {limit && (
            <button type="submit" name="intent" value="remove" className={buttonClass.secondary} disabled={pending}>
              Remove limit
            </button>
          )}
          <div className="md:col-span-4">
            <ActionOutcome state={state} />
          </div>
        </form>
      ) : (
        <p className={mutedClass}>Changing the scan limit needs an active subscription and the right to edit this link.</p>
      )}
    </section>
  );
}
