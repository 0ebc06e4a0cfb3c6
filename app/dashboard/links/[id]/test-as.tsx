"use client";

import { Button } from "@/components/ui/button";
import { SelectField, TextField } from "@/components/ui/field";
import { errorClass } from "@/components/ui/styles";
import type { ActionResult } from "@/lib/api/dashboard";
import { DEVICES, SYSTEMS } from "@/lib/links/routing";
import { useState, useTransition } from "react";
import { previewRouteAction } from "./routing-actions";
import { asRule, deviceName, type EditableRule, SYSTEM_NAMES } from "./routing-rules";

/** Where a visitor would land under the rules as they stand in the editor, decided by the same code as a visit. */
export function TestAs({ rules, destination }: { rules: EditableRule[]; destination: string }) {
  const [facts, setFacts] = useState({ country: "", device: "", os: "", language: "" });
  const [answer, setAnswer] = useState<ActionResult<string> | null>(null);
  const [testing, startTesting] = useTransition();
  const test = () =>
    startTesting(async () => {
      const result = await previewRouteAction(rules.map(asRule), {
        country: facts.country.trim().toUpperCase() || null,
        device: facts.device || null,
        os: facts.os || null,
        language: facts.language.trim().toLowerCase() || null,
      });
      setAnswer(
        result.ok
          ? {
              ok: true,
              value:
                result.value === null
                  ? `No rule matches: ${destination}`
                  : `Rule ${result.value + 1}: ${asRule(rules[result.value]!).destination}`,
            }
          : result,
      );
    });
  return (
    <fieldset className="mt-5 space-y-3 border-t border-zinc-200 pt-4 dark:border-zinc-700">
      <legend className="text-base font-semibold">Test as a visitor</legend>
      <div className="grid gap-3 sm:grid-cols-4">
        <TextField
          id="test-country"
          label="Country"
          value={facts.country}
          placeholder="AU"
          maxLength={2}
          onChange={(event) => setFacts({ ...facts, country: event.target.value })}
        />
        <AnyOf
          id="test-device"
          label="Device"
          value={facts.device}
          options={DEVICES.map((device) => [device, deviceName(device)])}
          onChange={(device) => setFacts({ ...facts, device })}
        />
        <AnyOf
          id="test-system"
          label="System"
          value={facts.os}
          options={SYSTEMS.map((system) => [system, SYSTEM_NAMES[system]])}
          onChange={(os) => setFacts({ ...facts, os })}
        />
        <TextField
          id="test-language"
          label="Language"
          value={facts.language}
          placeholder="fr"
          onChange={(event) => setFacts({ ...facts, language: event.target.value })}
        />
      </div>
      <Button disabled={testing} onClick={test}>
        Show where they go
      </Button>
      {answer && (
        <p
          role={answer.ok ? "status" : "alert"}
          className={(answer.ok ? "m-0 break-all text-sm" : errorClass) + " mt-2"}
          data-testid="test-as-result"
        >
          {answer.ok ? answer.value : answer.error}
        </p>
      )}
    </fieldset>
  );
}

/** A fact of the visitor chosen from a list, or Any. */
function AnyOf({
  id,
  label,
  value,
  options,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  options: [value: string, words: string][];
  onChange: (value: string) => void;
}) {
  return (
    <SelectField id={id} label={label} value={value} onChange={(event) => onChange(event.target.value)}>
      <option value="">Any</option>
      {options.map(([option, words]) => (
        <option key={option} value={option}>
          {words}
        </option>
      ))}
    </SelectField>
  );
}
