"use client";

import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { errorFor } from "@/components/ui/field-error";
import { ActionOutcome } from "@/components/ui/outcome";
import { cardClass, mutedClass } from "@/components/ui/styles";
import { useActionState } from "react";
import { TagsField } from "../../tags-field";
import { type LabelState, labelLinkAction } from "../actions";

/** The link's title and tags, edited together; a refusal keeps what was typed. */
export function LabelForm({
  id,
  title,
  tags,
  tagNames,
  canEdit,
}: {
  id: string;
  title: string | null;
  tags: string[];
  tagNames: string[];
  canEdit: boolean;
}) {
  const [state, action, pending] = useActionState<LabelState, FormData>(labelLinkAction, null);
  const refused = state && !state.ok ? state.typed : undefined;
  return (
    <section aria-labelledby="label-heading" className={cardClass}>
      <h2 id="label-heading" className="mt-0 text-lg">
        Title and tags
      </h2>
      {canEdit ? (
        <form action={action} className="grid gap-3 md:grid-cols-[1fr_1fr_auto] md:items-start" key={JSON.stringify(state)}>
          <input type="hidden" name="id" value={id} />
          <TextField
            id="label-title"
            label="Title"
            help="A name for people; the links list searches it. Leave it empty to remove it."
            error={errorFor("title", state)}
            name="title"
            defaultValue={refused?.title ?? title ?? ""}
          />
          <TagsField
            idPrefix="label"
            typed={refused?.tags ?? tags.join(", ")}
            tagNames={tagNames}
            error={errorFor("tags", state)}
          />
          <Button type="submit" variant="primary" className="md:mt-5" disabled={pending}>
            Save title and tags
          </Button>
          <div className="md:col-span-3">
            <ActionOutcome state={state?.ok || !state?.field ? state : null} />
          </div>
        </form>
      ) : (
        <p className={mutedClass}>Changing the title and tags needs an active subscription and the right to edit this link.</p>
      )}
    </section>
  );
}
