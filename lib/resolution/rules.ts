import { type AgentFacts, agentFacts } from "@/lib/analytics/agents";
import { countryLookup, countryLookupNow, visitorCountry } from "@/lib/analytics/countries";
import { visitorAddress } from "@/lib/analytics/visitors";
import { currentDestination, type RoutingRule, type ScheduledRepoint } from "@/lib/links/routing";
import type { CompiledRule, Route, Visit } from "./types";

export function compileRules(rules: readonly RoutingRule[]): CompiledRule[] | null {
  if (rules.length === 0) return null;
  return rules.map(({ when, destination }) => ({
    countries: setOf(when.country),
    devices: setOf(when.device),
    systems: setOf(when.os),
    languages: setOf(when.language),
    destination,
  }));
}

function setOf(values: readonly string[] | undefined): ReadonlySet<string> | null {
  return values ? new Set(values) : null;
}

/**
 * The first rule every named condition of which holds for the visit, else the link's own
 * destination as of `now` (a scheduled repoint whose time has come is it). Memory only.
 */
export function routeOf(
  link: { destination: string; rules: readonly CompiledRule[] | null; schedule: readonly ScheduledRepoint[] | null },
  visit: Visit,
  now: number,
): Route {
  const rule = link.rules === null ? -1 : firstMatch(link.rules, new VisitorTraits(visit));
  if (rule !== -1) return { destination: link.rules![rule]!.destination, rule };
  return {
    destination: link.schedule === null ? link.destination : currentDestination(link.destination, link.schedule, now),
    rule: null,
  };
}

/**
 * Null when the link's rules can route a visit now; otherwise the wait for the country database,
 * which a rule naming countries needs and which is read into memory on first use.
 */
export function countryLookupPending(link: { rules: readonly CompiledRule[] | null }): Promise<unknown> | null {
  if (link.rules === null || !link.rules.some((rule) => rule.countries !== null)) return null;
  return countryLookupNow() === undefined ? countryLookup() : null;
}

/** A visitor's facts as rules read them; null when unknown (no rule condition holds for an unknown fact). */
export type RuleFacts = { country: string | null; device: string | null; os: string | null; language: string | null };

/** What a visitor with these facts would be sent to: the index of the first matching rule, or null (the link's own destination). */
export function ruleFor(rules: readonly RoutingRule[], facts: RuleFacts): number | null {
  const compiled = compileRules(rules);
  const traits: Traits = {
    country: () => facts.country,
    device: () => facts.device,
    os: () => facts.os,
    language: () => facts.language,
  };
  const index = compiled === null ? -1 : firstMatch(compiled, traits);
  return index === -1 ? null : index;
}

/** The facts rules ask for, each worked out at most once. */
type Traits = { country(): string | null; device(): string | null; os(): string | null; language(): string | null };

function firstMatch(rules: readonly CompiledRule[], traits: Traits): number {
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index]!;
    if (
      (rule.countries === null || has(rule.countries, traits.country())) &&
      (rule.devices === null || has(rule.devices, traits.device())) &&
      (rule.systems === null || has(rule.systems, traits.os())) &&
      (rule.languages === null || has(rule.languages, traits.language()))
    )
      return index;
  }
  return -1;
}

/** Bowser's names for the systems rules name. */
const SYSTEM_IDS: Readonly<Record<string, string>> = {
  iOS: "ios",
  Android: "android",
  Windows: "windows",
  macOS: "macos",
  Linux: "linux",
};

const UNSET = Symbol("unset");

/** Before the country database is in memory (countryLookupPending waits for it), an address locates nothing. */
const NO_DATABASE = () => null;

/** The visitor's facts, each worked out once a visit and only when a rule asks for it. */
class VisitorTraits implements Traits {
  private countryValue: string | null | typeof UNSET = UNSET;
  private languageValue: string | null | typeof UNSET = UNSET;
  private agentValue: AgentFacts | undefined;

  constructor(private readonly visit: Visit) {}

  country(): string | null {
    if (this.countryValue === UNSET) {
      const countryOf = countryLookupNow() ?? NO_DATABASE;
      this.countryValue = visitorCountry(this.visit.edgeCountry, () => visitorAddress(this.visit), countryOf);
    }
    return this.countryValue;
  }

  device(): string | null {
    return this.agent().device;
  }

  os(): string | null {
    return SYSTEM_IDS[this.agent().os ?? ""] ?? null;
  }

  language(): string | null {
    if (this.languageValue === UNSET) this.languageValue = preferredLanguage(this.visit.acceptLanguage);
    return this.languageValue;
  }

  private agent(): AgentFacts {
    this.agentValue ??= agentFacts(this.visit.userAgent);
    return this.agentValue;
  }
}

function has(values: ReadonlySet<string>, value: string | null): boolean {
  return value !== null && values.has(value);
}

/** Longer Accept-Language headers are read this far: no browser sends more, and a visit's work stays bounded. */
const MAX_ACCEPT_LANGUAGE = 256;
const PRIMARY_TAG = /^[a-z]{2,3}$/;
const WEIGHT = /^\s*q\s*=\s*([0-9.]+)\s*$/i;

/**
 * The primary tag of the visitor's preferred language: the first range of the highest weight in
 * Accept-Language ("fr-CH, fr;q=0.9, en;q=0.8" → fr). Someone who reads French second is not sent
 * to the French page.
 */
export function preferredLanguage(header: string | null): string | null {
  if (!header) return null;
  let best: string | null = null;
  let bestWeight = 0;
  for (const range of header.slice(0, MAX_ACCEPT_LANGUAGE).split(",")) {
    const [tag = "", ...parameters] = range.split(";");
    let weight = 1;
    for (const parameter of parameters) {
      const match = WEIGHT.exec(parameter);
      if (match) weight = Number(match[1]);
    }
    const primary = tag.trim().split("-", 1)[0]!.toLowerCase();
    if (weight > bestWeight && PRIMARY_TAG.test(primary)) {
      best = primary;
      bestWeight = weight;
    }
  }
  return best;
}
