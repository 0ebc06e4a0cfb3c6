"use client";

import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { ActionOutcome } from "@/components/ui/outcome";
import { cardClass, mutedClass } from "@/components/ui/styles";
import type { ActionResult } from "@/lib/api/dashboard";
import { MAX_SCHEDULED, type ScheduledRepoint } from "@/lib/links/routing";
import { withScheme } from "@/lib/links/typed-destination";
import { useState, useTransition } from "react";
import { instantOfZoned, zonedInputValue } from "../../zoned-time";
import { saveScheduleAction } from "./routing-actions";

type EditableRepoint = { at: string; destination: string };

/**
 * Changes of destination at set times, entered and shown in the viewer's time zone and kept in
 * UTC: the code keeps working and points elsewhere from each time on.
 */
export function ScheduleEditor({
  id,
  schedule,
  canEdit,
  zone,
}: {
  id: string;
  schedule: ScheduledRepoint[];
  canEdit: boolean;
  zone: string;
}) {
  const [edited, setEdited] = useState<EditableRepoint[]>(
    schedule.map((entry) => ({ at: zonedInputValue(entry.at, zone), destination: entry.destination })),
  );
  const [saved, setSaved] = useState<ActionResult<string> | null>(null);
  const [saving, startSaving] = useTransition();
  const change = (index: number, patch: Partial<EditableRepoint>) =>
    setEdited((current) => current.map((entry, at) => (at === index ? { ...entry, ...patch } : entry)));
  const save = () =>
    startSaving(async () => {
      const entries = edited.map((entry) => ({ at: instantOfZoned(entry.at, zone), destination: withScheme(entry.destination) }));
      const unreadable = entries.findIndex((entry) => Number.isNaN(entry.at));
      setSaved(
        unreadable === -1
          ? await saveScheduleAction(id, entries)
          : { ok: false, error: `Change ${unreadable + 1} needs a date and time.` },
      );
    });
  return (
    <section aria-labelledby="schedule-heading" className={cardClass}>
      <h2 id="schedule-heading" className="mt-0 text-lg">
        Scheduled changes
      </h2>
      <p className={mutedClass}>
        Point the link somewhere else at a time you choose, for instance a page saying an offer has ended. The code keeps working
        before and after. Times are in your time zone, {zone}.
      </p>
      <ol className="m-0 list-none space-y-3 p-0">
        {edited.map((entry, index) => (
          <li key={index} className="grid gap-3 sm:grid-cols-[auto_1fr_auto] sm:items-end">
            <div>
              <TextField
                id={`repoint-${index}-at`}
                label={`Change ${index + 1}: from (${zone})`}
                type="datetime-local"
                value={entry.at}
                onChange={(event) => change(index, { at: event.target.value })}
                disabled={!canEdit}
              />
              {zone !== "UTC" && !Number.isNaN(instantOfZoned(entry.at, zone)) && (
                <p className={mutedClass + " mt-1 text-xs"} data-testid={`repoint-${index}-utc`}>
                  {zonedInputValue(instantOfZoned(entry.at, zone), "UTC").replace("T", " ")} UTC
                </p>
              )}
            </div>
            <TextField
              id={`repoint-${index}-destination`}
              label={`Change ${index + 1}: new destination`}
              type="url"
              value={entry.destination}
              onChange={(event) => change(index, { destination: event.target.value })}
              disabled={!canEdit}
            />
            {canEdit && (
              <Button variant="small" onClick={() => setEdited((current) => current.filter((_, at) => at !== index))}>
                Remove change {index + 1}
              </Button>
            )}
          </li>
        ))}
      </ol>
      {edited.length === 0 && <p className={mutedClass}>No changes scheduled.</p>}
      {canEdit && (
        <div className="mt-4 flex flex-wrap gap-2">
          <Button
            disabled={edited.length >= MAX_SCHEDULED}
            onClick={() => setEdited((current) => [...current, { at: "", destination: "" }])}
          >
            Add a change
          </Button>
          <Button variant="primary" disabled={saving} onClick={save}>
            Save schedule
          </Button>
        </div>
      )}
      <ActionOutcome state={saved} />
    </section>
  );
}
