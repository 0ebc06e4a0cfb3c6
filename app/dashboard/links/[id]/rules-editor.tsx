"use client";

import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { Checkbox } from "@/components/ui/input";
import { ActionOutcome } from "@/components/ui/outcome";
import { cardClass, labelClass, mutedClass } from "@/components/ui/styles";
import type { ActionResult } from "@/lib/api/dashboard";
import { DEVICES, MAX_RULES, type RoutingRule, SYSTEMS } from "@/lib/links/routing";
import { type ReactNode, useState, useTransition } from "react";
import { saveRulesAction } from "./routing-actions";
import { asRule, deviceName, editable, type EditableRule, EMPTY_RULE, SYSTEM_NAMES } from "./routing-rules";
import { TestAs } from "./test-as";

/** The link's routing rules, editable in order, with a "test as" preview of where a visitor would go. */
export function RulesEditor({
  id,
  destination,
  rules,
  canEdit,
}: {
  id: string;
  destination: string;
  rules: RoutingRule[];
  canEdit: boolean;
}) {
  const [edited, setEdited] = useState<EditableRule[]>(rules.map(editable));
  const [saved, setSaved] = useState<ActionResult<string> | null>(null);
  const [saving, startSaving] = useTransition();
  const change = (index: number, patch: Partial<EditableRule>) =>
    setEdited((current) => current.map((rule, at) => (at === index ? { ...rule, ...patch } : rule)));
  const move = (index: number) =>
    setEdited((current) => [...current.slice(0, index - 1), current[index]!, current[index - 1]!, ...current.slice(index + 1)]);
  const save = () => startSaving(async () => setSaved(await saveRulesAction(id, edited.map(asRule))));

  return (
    <section aria-labelledby="rules-heading" className={cardClass}>
      <h2 id="rules-heading" className="mt-0 text-lg">
        Routing rules
      </h2>
      <p className={mutedClass}>
        Send some visitors elsewhere by country, device, system or language. The first rule whose conditions all hold wins;
        everyone else goes to the link&apos;s destination. Leave a condition empty to ignore it. The code never changes.
      </p>
      <ol className="m-0 list-none space-y-4 p-0">
        {edited.map((rule, index) => (
          <li key={index}>
            <RuleFields rule={rule} index={index} canEdit={canEdit} onChange={(patch) => change(index, patch)}>
              {canEdit && (
                <div className="flex flex-wrap gap-2">
                  {index > 0 && (
                    <Button variant="small" onClick={() => move(index)}>
                      Move rule {index + 1} up
                    </Button>
                  )}
                  <Button variant="small" onClick={() => setEdited((current) => current.filter((_, at) => at !== index))}>
                    Remove rule {index + 1}
                  </Button>
                </div>
              )}
            </RuleFields>
          </li>
        ))}
      </ol>
      {edited.length === 0 && (
        <p className={mutedClass}>
          {/* A long destination (UTM parameters) breaks anywhere rather than widen a phone's page. */}
          No rules: every visit goes to <span className="break-all">{destination}</span>.
        </p>
      )}
      {canEdit ? (
        <div className="mt-4 flex flex-wrap gap-2">
          <Button disabled={edited.length >= MAX_RULES} onClick={() => setEdited((current) => [...current, EMPTY_RULE])}>
            Add a rule
          </Button>
          <Button variant="primary" disabled={saving} onClick={save}>
            Save rules
          </Button>
        </div>
      ) : (
        <p className={mutedClass}>Changing rules needs an active subscription and the right to edit this link.</p>
      )}
      <ActionOutcome state={saved} />
      <TestAs rules={edited} destination={destination} />
    </section>
  );
}

/** One rule's conditions and where it sends visitors; `children` are its buttons (move, remove). */
function RuleFields({
  rule,
  index,
  canEdit,
  onChange,
  children,
}: {
  rule: EditableRule;
  index: number;
  canEdit: boolean;
  onChange: (patch: Partial<EditableRule>) => void;
  children: ReactNode;
}) {
  return (
    <fieldset className="space-y-3 rounded-md border border-zinc-200 p-3 dark:border-zinc-700">
      <legend className="px-1 text-sm font-semibold">Rule {index + 1}</legend>
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField
          id={`rule-${index}-countries`}
          label="Countries"
          value={rule.countries}
          placeholder="AU, NZ"
          onChange={(event) => onChange({ countries: event.target.value })}
          disabled={!canEdit}
        />
        <TextField
          id={`rule-${index}-languages`}
          label="Languages"
          value={rule.languages}
          placeholder="fr, de"
          onChange={(event) => onChange({ languages: event.target.value })}
          disabled={!canEdit}
        />
      </div>
      <Choices
        legend="Devices"
        values={DEVICES}
        words={deviceName}
        chosen={rule.devices}
        disabled={!canEdit}
        onChange={(devices) => onChange({ devices })}
      />
      <Choices
        legend="Systems"
        values={SYSTEMS}
        words={(system) => SYSTEM_NAMES[system]}
        chosen={rule.systems}
        disabled={!canEdit}
        onChange={(systems) => onChange({ systems })}
      />
      <TextField
        id={`rule-${index}-destination`}
        label="Send them to"
        type="url"
        value={rule.destination}
        placeholder="https://example.com/page"
        onChange={(event) => onChange({ destination: event.target.value })}
        disabled={!canEdit}
      />
      {children}
    </fieldset>
  );
}

/** A condition of several values (devices, systems), one box each; none ticked ignores the condition. */
function Choices<Value extends string>({
  legend,
  values,
  words,
  chosen,
  disabled,
  onChange,
}: {
  legend: string;
  values: readonly Value[];
  words: (value: Value) => string;
  chosen: Value[];
  disabled: boolean;
  onChange: (chosen: Value[]) => void;
}) {
  return (
    <fieldset className="flex flex-wrap gap-x-4 gap-y-1">
      <legend className={labelClass}>{legend}</legend>
      {values.map((value) => (
        <Checkbox
          key={value}
          label={words(value)}
          className="flex items-center gap-1 text-sm"
          checked={chosen.includes(value)}
          onChange={() => onChange(chosen.includes(value) ? chosen.filter((other) => other !== value) : [...chosen, value])}
          disabled={disabled}
        />
      ))}
    </fieldset>
  );
}
