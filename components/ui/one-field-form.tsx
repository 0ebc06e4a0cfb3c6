"use client";

import { useActionState } from "react";
import { Button } from "./button";
import { TextField } from "./field";
import { errorFor } from "./field-error";
import { type ActionSentence, ActionOutcome } from "./outcome";
import { mutedClass } from "./styles";

type Field = { id: string; name: string; label: string; defaultValue?: string; placeholder?: string; help?: string };

/** The action's answer, what to show in the field again after a refusal, and a count that redraws the form after each try. */
type Attempt = { sentence: ActionSentence; typed: string | undefined; count: number } | null;

/**
 * A form of one required text field and a button whose server action answers a sentence (rename a
 * workspace, create one, add a domain). React clears a form after its action; a refused value is
 * put back so it can be corrected.
 */
export function OneFieldForm({
  action,
  field,
  submit,
  primary = false,
}: {
  action: (previous: ActionSentence, form: FormData) => Promise<ActionSentence>;
  field: Field;
  submit: string;
  primary?: boolean;
}) {
  const [attempt, run, pending] = useActionState<Attempt, FormData>(async (previous, form) => {
    const sentence = await action(previous?.sentence ?? null, form);
    const typed = sentence && !sentence.ok ? String(form.get(field.name) ?? "") : undefined;
    return { sentence, typed, count: (previous?.count ?? 0) + 1 };
  }, null);
  const helpId = `${field.id}-help`;
  const sentence = attempt?.sentence;
  const fieldError = errorFor(field.name, sentence);
  return (
    <form action={run} className="flex flex-wrap items-end gap-3" key={attempt?.count ?? 0}>
      {/* The help stands under the whole row, below the button: the field names it as what describes it. */}
      <TextField
        id={field.id}
        label={field.label}
        error={fieldError}
        describedBy={field.help ? helpId : undefined}
        className="grow"
        name={field.name}
        required
        defaultValue={attempt?.typed ?? field.defaultValue}
        placeholder={field.placeholder}
      />
      <Button type="submit" variant={primary ? "primary" : "secondary"} disabled={pending}>
        {submit}
      </Button>
      {field.help && (
        <p id={helpId} className={mutedClass + " m-0 w-full"}>
          {field.help}
        </p>
      )}
      <div className="w-full">{!fieldError && <ActionOutcome state={sentence ?? null} />}</div>
    </form>
  );
}
