"use client";

import { Button } from "@/components/ui/button";
import { Confirm } from "@/components/ui/confirm";
import { SelectField, TextField } from "@/components/ui/field";
import { ActionOutcome, type ActionSentence } from "@/components/ui/outcome";
import { mutedClass } from "@/components/ui/styles";
import {
  TEMPLATE_NAME_MAX,
  UTM_FIELDS,
  UTM_LABELS,
  UTM_VALUE_MAX,
  type UtmField,
  type UtmValues,
  utmOf,
  withUtm,
} from "@/lib/utm/parameters";
import type { UtmTemplateView } from "@/lib/utm/schemas";
import { useState, useTransition } from "react";
import { deleteUtmTemplateAction, saveUtmTemplateAction } from "./utm/actions";

const PLACEHOLDERS: Record<UtmField, string> = {
  utm_source: "poster",
  utm_medium: "print",
  utm_campaign: "spring-menu",
  utm_term: "brunch",
  utm_content: "table-tent",
};

/**
 * A destination field and its UTM parameters, kept in step: the destination is what the form
 * sends, each parameter edits its part of it in place, and a destination typed or pasted with
 * utm_ parameters shows them in the fields.
 */
export function useUtmDestination(initial: string) {
  const [destination, setDestinationText] = useState(initial);
  const [values, setValues] = useState<UtmValues>(() => utmOf(initial));
  return {
    destination,
    values,
    setDestination(text: string) {
      setDestinationText(text);
      setValues(utmOf(text));
    },
    setValue(field: UtmField, value: string) {
      setValues((current) => ({ ...current, [field]: value }));
      setDestinationText((current) => withUtm(current, { [field]: value }));
    },
    apply(next: UtmValues) {
      setValues(next);
      setDestinationText((current) => withUtm(current, next));
    },
  };
}

type UtmDestination = ReturnType<typeof useUtmDestination>;

/** The destination as a person types it (a scheme may be left out), kept in step with the UTM fields. */
export function DestinationField({
  utm,
  ...field
}: {
  utm: UtmDestination;
  id: string;
  label: string;
  help?: string;
  error: string | undefined;
  placeholder?: string;
  autoComplete?: string;
}) {
  return (
    <TextField
      {...field}
      name="destination"
      type="text"
      inputMode="url"
      spellCheck={false}
      required
      value={utm.destination}
      onChange={(event) => utm.setDestination(event.target.value)}
    />
  );
}

function valuesOf(template: UtmTemplateView): UtmValues {
  return Object.fromEntries(UTM_FIELDS.map((field) => [field, template[field] ?? ""])) as UtmValues;
}

/**
 * The UTM fields of a create or repoint form (named as the query's parameters), with the
 * workspace's saved templates: shown only to those who may create links, who may also save them.
 */
export function UtmBuilder({
  idPrefix,
  utm,
  templates,
}: {
  idPrefix: string;
  utm: UtmDestination;
  templates: UtmTemplateView[];
}) {
  const [chosen, setChosen] = useState("");
  const [templateName, setTemplateName] = useState("");
  const [outcome, setOutcome] = useState<ActionSentence>(null);
  const [pending, startTransition] = useTransition();
  const template = templates.find((candidate) => candidate.id === chosen);
  const set = UTM_FIELDS.filter((field) => utm.values[field].trim() !== "").length;
  // Open when the destination carries parameters, and when a pasted one brings some; otherwise as the person leaves it.
  const [open, setOpen] = useState(set > 0);
  const [lastSet, setLastSet] = useState(set);
  if (set !== lastSet) {
    setLastSet(set);
    if (lastSet === 0 && set > 0) setOpen(true);
  }

  function save() {
    startTransition(async () => {
      const result = await saveUtmTemplateAction({ name: templateName, ...utm.values });
      if (result.ok) {
        setChosen(result.value.id);
        setTemplateName("");
        setOutcome({ ok: true, value: `Saved the template "${result.value.name}".` });
      } else setOutcome(result);
    });
  }

  return (
    <details
      className="rounded-md border border-zinc-200 p-3 dark:border-zinc-800"
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary className="cursor-pointer text-sm font-medium">UTM parameters {set > 0 ? `(${set} set)` : "(optional)"}</summary>
      <div className="mt-3 space-y-3">
        <p className={mutedClass + " m-0"}>
          They become part of the destination, for your analytics tool to see where visitors came from. An empty field leaves its
          parameter out.
        </p>
        <div className="grid gap-3 sm:grid-cols-3 lg:grid-cols-5">
          {UTM_FIELDS.map((field) => (
            <TextField
              key={field}
              id={`${idPrefix}-${field}`}
              label={
                <>
                  {UTM_LABELS[field]} <span className={mutedClass}>({field})</span>
                </>
              }
              name={field}
              value={utm.values[field]}
              maxLength={UTM_VALUE_MAX}
              placeholder={PLACEHOLDERS[field]}
              spellCheck={false}
              onChange={(event) => utm.setValue(field, event.target.value)}
            />
          ))}
        </div>
        {templates.length > 0 && (
          <div className="flex flex-wrap items-end gap-2">
            <SelectField
              id={`${idPrefix}-template`}
              label="Saved template"
              className="min-w-0 grow basis-48"
              value={chosen}
              onChange={(event) => setChosen(event.target.value)}
            >
              <option value="">Choose a template</option>
              {templates.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.name}
                </option>
              ))}
            </SelectField>
            <Button
              disabled={!template}
              onClick={() => {
                if (!template) return;
                utm.apply(valuesOf(template));
                setOutcome({ ok: true, value: `Applied the template "${template.name}".` });
              }}
            >
              Apply template
            </Button>
            {template && (
              <Confirm
                label="Delete template"
                what={template.name}
                question={`Delete the template "${template.name}"? Links made with it keep their destinations.`}
                confirm={`Yes, delete "${template.name}"`}
                pending={pending}
                onConfirm={() =>
                  startTransition(async () => {
                    setOutcome(await deleteUtmTemplateAction(template.id));
                    setChosen("");
                  })
                }
              />
            )}
          </div>
        )}
        <div className="flex flex-wrap items-end gap-2">
          <TextField
            id={`${idPrefix}-template-name`}
            label="Save these parameters as a template named"
            className="min-w-0 grow basis-48"
            value={templateName}
            maxLength={TEMPLATE_NAME_MAX}
            placeholder="Spring posters"
            onChange={(event) => setTemplateName(event.target.value)}
            onKeyDown={(event) => {
              // Enter here saves the template; it does not send the link's form.
              if (event.key !== "Enter") return;
              event.preventDefault();
              if (templateName.trim() !== "" && set > 0) save();
            }}
          />
          <Button disabled={pending || templateName.trim() === "" || set === 0} onClick={save}>
            Save as template
          </Button>
        </div>
        <ActionOutcome state={outcome} />
      </div>
    </details>
  );
}
