"use client";

import { errorFor, FieldError, fieldProps } from "@/components/ui/field-error";
import { ActionOutcome } from "@/components/ui/outcome";
import { buttonClass, cardClass, inputClass, labelClass, mutedClass } from "@/components/ui/styles";
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
          <div>
            <label htmlFor="label-title" className={labelClass}>
              Title
            </label>
            <input
              id="label-title"
              name="title"
              defaultValue={refused?.title ?? title ?? ""}
              className={inputClass}
              {...fieldProps("title", "label-title-error", state, "label-title-help")}
            />
            <p id="label-title-help" className={mutedClass + " m-0 mt-1 text-sm"}>
              A name for people; the links list searches it. Leave it empty to remove it.
            </p>
            <FieldError id="label-title-error" error={errorFor("title", state)} />
          </div>
          <div>
            <TagsField idPrefix="label" typed={refused?.tags ?? tags.join(", ")} tagNames={tagNames} state={state} />
          </div>
          <button type="submit" className={buttonClass.primary + " md:mt-5"} disabled={pending}>
            Save title and tags
          </button>
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
