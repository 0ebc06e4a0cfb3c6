"use client";

import { buttonClass, cardClass, errorClass, inputClass, labelClass, mutedClass, noticeClass } from "@/components/ui/styles";
import type { ActionResult } from "@/lib/api/dashboard";
import {
  type Device,
  DEVICES,
  MAX_RULES,
  MAX_SCHEDULED,
  type OperatingSystem,
  type RoutingRule,
  type ScheduledRepoint,
  SYSTEMS,
} from "@/lib/links/routing";
import type { LinkView } from "@/lib/links/schemas";
import { withScheme } from "@/lib/links/typed-destination";
import { useState, useTransition } from "react";
import { instantOfZoned, zonedInputValue } from "../../zoned-time";
import { previewRouteAction, saveRulesAction, saveScheduleAction } from "./routing-actions";

type EditableRule = { countries: string; devices: Device[]; systems: OperatingSystem[]; languages: string; destination: string };

const SYSTEM_NAMES: Record<OperatingSystem, string> = {
  ios: "iOS",
  android: "Android",
  windows: "Windows",
  macos: "macOS",
  linux: "Linux",
};

const list = (typed: string) => typed.split(/[\s,]+/).filter((value) => value !== "");

function editable(rule: RoutingRule): EditableRule {
  return {
    countries: (rule.when.country ?? []).join(", "),
    devices: rule.when.device ?? [],
    systems: rule.when.os ?? [],
    languages: (rule.when.language ?? []).join(", "),
    destination: rule.destination,
  };
}

function asRule(rule: EditableRule): RoutingRule {
  const when: RoutingRule["when"] = {};
  if (list(rule.countries).length > 0) when.country = list(rule.countries);
  if (rule.devices.length > 0) when.device = rule.devices;
  if (rule.systems.length > 0) when.os = rule.systems;
  if (list(rule.languages).length > 0) when.language = list(rule.languages);
  return { when, destination: withScheme(rule.destination) };
}

const EMPTY_RULE: EditableRule = { countries: "", devices: [], systems: [], languages: "", destination: "" };

function Outcome({ result }: { result: ActionResult<string> | null }) {
  if (!result) return null;
  return result.ok ? (
    <p role="status" className={noticeClass + " mt-3"}>
      {result.value}
    </p>
  ) : (
    <p role="alert" className={errorClass + " mt-3"}>
      {result.error}
    </p>
  );
}

/** The link page's rules and schedule editors. */
export function LinkRouting({ link, canEdit, zone }: { link: LinkView; canEdit: boolean; zone: string }) {
  return (
    <>
      <RulesEditor id={link.id} destination={link.destination} rules={link.rules} canEdit={canEdit} />
      {/* Drawn afresh once the browser has told its zone (ViewerTimeZone), so the times are read in it. */}
      <ScheduleEditor key={zone} id={link.id} schedule={link.schedule} canEdit={canEdit} zone={zone} />
    </>
  );
}

/** The link's routing rules, editable in order, with a "test as" preview of where a visitor would go. */
function RulesEditor({
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
  const toggle = <T,>(values: T[], value: T) => (values.includes(value) ? values.filter((v) => v !== value) : [...values, value]);
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
            <fieldset className="space-y-3 rounded-md border border-zinc-200 p-3 dark:border-zinc-700">
              <legend className="px-1 text-sm font-semibold">Rule {index + 1}</legend>
              <div className="grid gap-3 sm:grid-cols-2">
                <div>
                  <label htmlFor={`rule-${index}-countries`} className={labelClass}>
                    Countries
                  </label>
                  <input
                    id={`rule-${index}-countries`}
                    value={rule.countries}
                    placeholder="AU, NZ"
                    onChange={(event) => change(index, { countries: event.target.value })}
                    className={inputClass}
                    disabled={!canEdit}
                  />
                </div>
                <div>
                  <label htmlFor={`rule-${index}-languages`} className={labelClass}>
                    Languages
                  </label>
                  <input
                    id={`rule-${index}-languages`}
                    value={rule.languages}
                    placeholder="fr, de"
                    onChange={(event) => change(index, { languages: event.target.value })}
                    className={inputClass}
                    disabled={!canEdit}
                  />
                </div>
              </div>
              <fieldset className="flex flex-wrap gap-x-4 gap-y-1">
                <legend className={labelClass}>Devices</legend>
                {DEVICES.map((device) => (
                  <label key={device} className="flex items-center gap-1 text-sm">
                    <input
                      type="checkbox"
                      checked={rule.devices.includes(device)}
                      onChange={() => change(index, { devices: toggle(rule.devices, device) })}
                      disabled={!canEdit}
                    />
                    {device[0]!.toUpperCase() + device.slice(1)}
                  </label>
                ))}
              </fieldset>
              <fieldset className="flex flex-wrap gap-x-4 gap-y-1">
                <legend className={labelClass}>Systems</legend>
                {SYSTEMS.map((system) => (
                  <label key={system} className="flex items-center gap-1 text-sm">
                    <input
                      type="checkbox"
                      checked={rule.systems.includes(system)}
                      onChange={() => change(index, { systems: toggle(rule.systems, system) })}
                      disabled={!canEdit}
                    />
                    {SYSTEM_NAMES[system]}
                  </label>
                ))}
              </fieldset>
              <div>
                <label htmlFor={`rule-${index}-destination`} className={labelClass}>
                  Send them to
                </label>
                <input
                  id={`rule-${index}-destination`}
                  type="url"
                  value={rule.destination}
                  placeholder="https://example.com/page"
                  onChange={(event) => change(index, { destination: event.target.value })}
                  className={inputClass}
                  disabled={!canEdit}
                />
              </div>
              {canEdit && (
                <div className="flex flex-wrap gap-2">
                  {index > 0 && (
                    <button type="button" className={buttonClass.small} onClick={() => move(index)}>
                      Move rule {index + 1} up
                    </button>
                  )}
                  <button
                    type="button"
                    className={buttonClass.small}
                    onClick={() => setEdited((current) => current.filter((_, at) => at !== index))}
                  >
                    Remove rule {index + 1}
                  </button>
                </div>
              )}
            </fieldset>
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
          <button
            type="button"
            className={buttonClass.secondary}
            disabled={edited.length >= MAX_RULES}
            onClick={() => setEdited((current) => [...current, EMPTY_RULE])}
          >
            Add a rule
          </button>
          <button type="button" className={buttonClass.primary} disabled={saving} onClick={save}>
            Save rules
          </button>
        </div>
      ) : (
        <p className={mutedClass}>Changing rules needs an active subscription and the right to edit this link.</p>
      )}
      <Outcome result={saved} />
      <TestAs rules={edited} destination={destination} />
    </section>
  );
}

/** Where a visitor would land under the rules as they stand in the editor, decided by the same code as a visit. */
function TestAs({ rules, destination }: { rules: EditableRule[]; destination: string }) {
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
        <div>
          <label htmlFor="test-country" className={labelClass}>
            Country
          </label>
          <input
            id="test-country"
            value={facts.country}
            placeholder="AU"
            maxLength={2}
            onChange={(event) => setFacts({ ...facts, country: event.target.value })}
            className={inputClass}
          />
        </div>
        <div>
          <label htmlFor="test-device" className={labelClass}>
            Device
          </label>
          <select
            id="test-device"
            value={facts.device}
            onChange={(event) => setFacts({ ...facts, device: event.target.value })}
            className={inputClass}
          >
            <option value="">Any</option>
            {DEVICES.map((device) => (
              <option key={device} value={device}>
                {device[0]!.toUpperCase() + device.slice(1)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="test-system" className={labelClass}>
            System
          </label>
          <select
            id="test-system"
            value={facts.os}
            onChange={(event) => setFacts({ ...facts, os: event.target.value })}
            className={inputClass}
          >
            <option value="">Any</option>
            {SYSTEMS.map((system) => (
              <option key={system} value={system}>
                {SYSTEM_NAMES[system]}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="test-language" className={labelClass}>
            Language
          </label>
          <input
            id="test-language"
            value={facts.language}
            placeholder="fr"
            onChange={(event) => setFacts({ ...facts, language: event.target.value })}
            className={inputClass}
          />
        </div>
      </div>
      <button type="button" className={buttonClass.secondary} disabled={testing} onClick={test}>
        Show where they go
      </button>
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

type EditableRepoint = { at: string; destination: string };

/**
 * Changes of destination at set times, entered and shown in the viewer's time zone and kept in
 * UTC: the code keeps working and points elsewhere from each time on.
 */
function ScheduleEditor({
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
              <label htmlFor={`repoint-${index}-at`} className={labelClass}>
                Change {index + 1}: from ({zone})
              </label>
              <input
                id={`repoint-${index}-at`}
                type="datetime-local"
                value={entry.at}
                onChange={(event) => change(index, { at: event.target.value })}
                className={inputClass}
                disabled={!canEdit}
              />
              {zone !== "UTC" && !Number.isNaN(instantOfZoned(entry.at, zone)) && (
                <p className={mutedClass + " mt-1 text-xs"} data-testid={`repoint-${index}-utc`}>
                  {zonedInputValue(instantOfZoned(entry.at, zone), "UTC").replace("T", " ")} UTC
                </p>
              )}
            </div>
            <div>
              <label htmlFor={`repoint-${index}-destination`} className={labelClass}>
                Change {index + 1}: new destination
              </label>
              <input
                id={`repoint-${index}-destination`}
                type="url"
                value={entry.destination}
                onChange={(event) => change(index, { destination: event.target.value })}
                className={inputClass}
                disabled={!canEdit}
              />
            </div>
            {canEdit && (
              <button
                type="button"
                className={buttonClass.small}
                onClick={() => setEdited((current) => current.filter((_, at) => at !== index))}
              >
                Remove change {index + 1}
              </button>
            )}
          </li>
        ))}
      </ol>
      {edited.length === 0 && <p className={mutedClass}>No changes scheduled.</p>}
      {canEdit && (
        <div className="mt-4 flex flex-wrap gap-2">
          <button
            type="button"
            className={buttonClass.secondary}
            disabled={edited.length >= MAX_SCHEDULED}
            onClick={() => setEdited((current) => [...current, { at: "", destination: "" }])}
          >
            Add a change
          </button>
          <button type="button" className={buttonClass.primary} disabled={saving} onClick={save}>
            Save schedule
          </button>
        </div>
      )}
      <Outcome result={saved} />
    </section>
  );
}
