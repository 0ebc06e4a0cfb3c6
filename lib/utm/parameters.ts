/**
 * The UTM part of a destination, read and written in place: the dashboard's builder (in the
 * browser) and its server actions use the same two functions. No schemas here, so the link page's
 * bundle stays small (zod never reaches the browser).
 */

export const UTM_FIELDS = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"] as const;
export type UtmField = (typeof UTM_FIELDS)[number];
export type UtmValues = Record<UtmField, string>;

export const UTM_VALUE_MAX = 200;
export const TEMPLATE_NAME_MAX = 60;

/** What a person calls each field. */
export const UTM_LABELS: Record<UtmField, string> = {
  utm_source: "Source",
  utm_medium: "Medium",
  utm_campaign: "Campaign",
  utm_term: "Term",
  utm_content: "Content",
};

export const NO_UTM: UtmValues = { utm_source: "", utm_medium: "", utm_campaign: "", utm_term: "", utm_content: "" };

const isUtmField = (name: string): name is UtmField => (UTM_FIELDS as readonly string[]).includes(name);

/** A query component as a form decodes it ("+" is a space); a broken escape is left as written. */
function decodeComponent(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
}

/** The destination's parts around its query: what comes before "?", the query's pairs, and the fragment ("#…" or ""). */
function split(destination: string): { base: string; pairs: string[]; fragment: string } {
  const hashAt = destination.indexOf("#");
  const beforeHash = hashAt === -1 ? destination : destination.slice(0, hashAt);
  const fragment = hashAt === -1 ? "" : destination.slice(hashAt);
  const queryAt = beforeHash.indexOf("?");
  if (queryAt === -1) return { base: beforeHash, pairs: [], fragment };
  const query = beforeHash.slice(queryAt + 1);
  return { base: beforeHash.slice(0, queryAt), pairs: query === "" ? [] : query.split("&"), fragment };
}

function nameOf(pair: string): string {
  const equals = pair.indexOf("=");
  return decodeComponent(equals === -1 ? pair : pair.slice(0, equals));
}

function valueOf(pair: string): string {
  const equals = pair.indexOf("=");
  return equals === -1 ? "" : decodeComponent(pair.slice(equals + 1));
}

/** The UTM parameters a destination carries (the first of each name), "" for those it lacks. */
export function utmOf(destination: string): UtmValues {
  const values = { ...NO_UTM };
  const seen = new Set<string>();
  for (const pair of split(destination).pairs) {
    const name = nameOf(pair);
    if (isUtmField(name) && !seen.has(name)) {
      seen.add(name);
      values[name] = valueOf(pair);
    }
  }
  return values;
}

/**
 * The destination with the named UTM parameters changed. A field whose value (as given, or trimmed)
 * is what the destination already carries is not a change: its pairs stay exactly as written, even
 * repeated or empty. A changed one takes the place of its first pair and drops the others, an empty
 * value removes them all, a new one goes at the end in the usual order; other parameters and the
 * fragment are left exactly as they were. Values are trimmed and percent-encoded.
 */
export function withUtm(destination: string, values: Partial<UtmValues>): string {
  const changed = changedUtm(destination, values);
  if (changed.size === 0) return destination;
  const { base, pairs, fragment } = split(destination);
  const written = new Set<UtmField>();
  const kept: string[] = [];
  for (const pair of pairs) {
    const name = nameOf(pair);
    if (!isUtmField(name) || !changed.has(name)) {
      kept.push(pair);
      continue;
    }
    const value = changed.get(name)!;
    if (value === "" || written.has(name)) continue;
    written.add(name);
    kept.push(`${name}=${encodeURIComponent(value)}`);
  }
  for (const [name, value] of changed) {
    if (value !== "" && !written.has(name)) kept.push(`${name}=${encodeURIComponent(value)}`);
  }
  return `${base}${kept.length > 0 ? `?${kept.join("&")}` : ""}${fragment}`;
}

/** The named fields whose value differs from what the destination carries, trimmed, in the usual order. */
function changedUtm(destination: string, values: Partial<UtmValues>): Map<UtmField, string> {
  const current = utmOf(destination);
  const changed = new Map<UtmField, string>();
  for (const field of UTM_FIELDS) {
    const value = values[field];
    if (value !== undefined && value !== current[field] && value.trim() !== current[field]) changed.set(field, value.trim());
  }
  return changed;
}

/** The fields of a form that carries a UTM builder; a field the form does not carry is left out (the destination keeps its own). */
export function utmFromForm(read: (name: string) => unknown): Partial<UtmValues> {
  const values: Partial<UtmValues> = {};
  for (const field of UTM_FIELDS) {
    const value = read(field);
    if (typeof value === "string") values[field] = value;
  }
  return values;
}
