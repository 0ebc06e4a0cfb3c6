import { type Device, type OperatingSystem, type RoutingRule } from "@/lib/links/routing";
import { withScheme } from "@/lib/links/typed-destination";

/** A rule as the editor holds it: the lists as typed (commas or spaces between values). */
export type EditableRule = {
  countries: string;
  devices: Device[];
  systems: OperatingSystem[];
  languages: string;
  destination: string;
};

export const EMPTY_RULE: EditableRule = { countries: "", devices: [], systems: [], languages: "", destination: "" };

export const SYSTEM_NAMES: Record<OperatingSystem, string> = {
  ios: "iOS",
  android: "Android",
  windows: "Windows",
  macos: "macOS",
  linux: "Linux",
};

/** A device in words: "Mobile". */
export const deviceName = (device: Device) => device[0]!.toUpperCase() + device.slice(1);

const list = (typed: string) => typed.split(/[\s,]+/).filter((value) => value !== "");

export function editable(rule: RoutingRule): EditableRule {
  return {
    countries: (rule.when.country ?? []).join(", "),
    devices: rule.when.device ?? [],
    systems: rule.when.os ?? [],
    languages: (rule.when.language ?? []).join(", "),
    destination: rule.destination,
  };
}

/** The rule the editor's fields say: an empty condition is left out, a destination typed without a scheme gets one. */
export function asRule(rule: EditableRule): RoutingRule {
  const when: RoutingRule["when"] = {};
  if (list(rule.countries).length > 0) when.country = list(rule.countries);
  if (rule.devices.length > 0) when.device = rule.devices;
  if (rule.systems.length > 0) when.os = rule.systems;
  if (list(rule.languages).length > 0) when.language = list(rule.languages);
  return { when, destination: withScheme(rule.destination) };
}
