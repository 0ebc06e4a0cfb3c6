"use client";

import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { ActionOutcome } from "@/components/ui/outcome";
import { cardClass, mutedClass } from "@/components/ui/styles";
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
          <TextField
            id="scan-limit-after"
            label="After this many scans"
            name="after"
            inputMode="numeric"
            defaultValue={limit?.after ?? ""}
          />
          <TextField
            id="scan-limit-destination"
            label="Then send visitors to"
            name="destination"
            type="url"
            defaultValue={limit?.destination ?? ""}
          />
          <Button type="submit" name="intent" value="set" variant="primary" disabled={pending}>
            {limit ? "Start again" : "Set limit"}
          </Button>
          {limit && (
            <Button type="submit" name="intent" value="remove" disabled={pending}>
              Remove limit
            </Button>
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
