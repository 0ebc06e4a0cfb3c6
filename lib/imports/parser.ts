import { DomainError } from "@/lib/http/errors";
import { withScheme } from "@/lib/links/typed-destination";
import { CsvError, parse } from "csv-parse";
import { Readable } from "node:stream";
import { domainToUnicode } from "node:url";
import {
  type ImportFormat,
  MAX_IMPORT_COLUMNS,
  MAX_IMPORT_NESTING,
  MAX_IMPORT_ROW_CHARS,
  MAX_IMPORT_ROWS,
  TOO_LARGE_SENTENCE,
} from "./schemas";

/** One row of a provider's export, in our words; `row` is its number as a spreadsheet shows it (the header is row 1). */
export type ImportRow = {
  row: number;
  destination: string;
  shortLink: string | null;
  title: string | null;
  tags: string[];
  /** Archived at the source: imported archived, still resolving. */
  archived?: boolean;
  /** When the source created it (epoch milliseconds), when it says. */
  createdAt?: number | null;
  /** The link's password at the source, where its export holds one (Dub's, Short.io's): hashed when the link is made. */
  password?: string | null;
  /** The social preview's title and description, where the file has them (this service's own export). */
  previewTitle?: string | null;
  previewDescription?: string | null;
};

/** The header names each provider's export uses, by meaning, in order of preference; compared without case, spaces, underscores or hyphens. */
const COLUMNS = {
  destination: [
    "long_url",
    "Long URL",
    "url",
    "destination",
    "original_url",
    "originalUrl",
    "target",
    "longUrl",
    "destination url",
  ],
  shortLink: [
    "link",
    "bitlink",
    "short_link",
    "shortLink",
    "short_url",
    "shortUrl",
    "shortCode",
    "slug",
    "key",
    "address",
    "short url",
  ],
  title: ["title", "name"],
  tags: ["tags", "tag"],
  archived: ["archived"],
  createdAt: ["created_at", "createdAt", "dateCreated", "created at", "date created"],
  password: ["password"],
  previewTitle: ["preview_title"],
  previewDescription: ["preview_description"],
} as const;

type Meaning = keyof typeof COLUMNS;
const MEANINGS = Object.keys(COLUMNS) as Meaning[];

/** What each format's export is recognised by: a header only that provider writes. */
const SIGNATURES: readonly [ImportFormat, readonly string[]][] = [
  ["bitly", ["bitlink", "long_url", "custom_bitlinks"]],
  ["shlink", ["shortCode", "longUrl"]],
  ["kutt", ["address", "target"]],
  ["rebrandly", ["slashtag", "destination"]],
  ["shortio", ["originalURL", "shortURL"]],
  ["dub", ["key", "url", "domain", "shortLink", "Destination URL"]],
];

/** A record's value by its field's normalised name ("shortlink" for Short link, shortLink or short_link). */
type Field = (name: string) => unknown;

/**
 * Each source's own fields, from its documented export and API shapes: where the destination,
 * the printed code (host and code), the title and the tags are. A source whose records give the
 * host and the code apart (Dub's domain and key, Rebrandly's domain and slashtag, Kutt's domain
 * and address) has them joined, so the code stays on its own host.
 */
type SourceMapping = {
  /** Recognises the source's records by fields only it writes (format=auto). */
  recognise: (headers: ReadonlySet<string>) => boolean;
  destination: readonly string[];
  printed: (field: Field) => string | null;
  /** More codes printed for the same link (Bitly's custom back-halves): each becomes a link too. */
  alsoPrinted?: (field: Field) => string[];
  title: readonly string[];
  tags: readonly string[];
  archived: readonly string[];
  createdAt: readonly string[];
  /** Only sources whose exports hold the password itself (Kutt's says only whether there is one). */
  password: readonly string[];
  /** No peer's export has a preview of ours: only a file read by meaning (our own export) carries one. */
  previewTitle?: readonly string[];
  previewDescription?: readonly string[];
};

const has = (headers: ReadonlySet<string>, ...names: string[]) => names.every((name) => headers.has(name));

/** A host as a source writes it: a name, or Rebrandly's domain object ({ fullName }). */
function hostOf(value: unknown): string | null {
  if (value !== null && typeof value === "object") return asText((value as { fullName?: unknown }).fullName);
  return asText(value);
}

/** ["https://go.example/a", …] as the API writes it, or the export's cell of them. */
function codeList(value: unknown): string[] {
  const codes = Array.isArray(value) ? value.map(asText) : (asText(value)?.split(/[\s,|]+/) ?? []);
  return codes.filter((code): code is string => Boolean(code));
}

function joined(host: unknown, code: unknown): string | null {
  const [name, slug] = [hostOf(host), asText(code)];
  return slug && name ? `${name}/${slug}` : slug;
}

const MAPPINGS: readonly [ImportFormat, SourceMapping][] = [
  [
    "bitly",
    {
      recognise: (headers) => has(headers, "longurl") && (has(headers, "link") || has(headers, "custombitlinks")),
      destination: ["longurl"],
      printed: (field) => asText(field("link")) ?? asText(field("id")),
      alsoPrinted: (field) => codeList(field("custombitlinks")),
      title: ["title"],
      tags: ["tags"],
      archived: ["archived"],
      createdAt: ["createdat"],
      password: [],
    },
  ],
  [
    "shlink",
    {
      recognise: (headers) => has(headers, "shortcode", "longurl"),
      destination: ["longurl"],
      printed: (field) => asText(field("shorturl")) ?? joined(field("domain"), field("shortcode")),
      title: ["title"],
      tags: ["tags"],
      archived: [],
      createdAt: ["datecreated", "createdat"],
      password: [],
    },
  ],
  [
    "kutt",
    {
      recognise: (headers) => has(headers, "address", "target"),
      destination: ["target"],
      // Kutt writes domain null for its default host.
      printed: (field) => asText(field("link")) ?? joined(field("domain") ?? "kutt.it", field("address")),
      title: ["description", "title"],
      tags: [],
      archived: [],
      createdAt: ["createdat"],
      password: [],
    },
  ],
  [
    "rebrandly",
    {
      recognise: (headers) => has(headers, "slashtag", "destination"),
      destination: ["destination"],
      printed: (field) => asText(field("shorturl")) ?? joined(field("domain") ?? field("domainname"), field("slashtag")),
      title: ["title"],
      tags: ["tags"],
      archived: [],
      createdAt: ["createdat"],
      password: [],
    },
  ],
  [
    "shortio",
    {
      recognise: (headers) => has(headers, "originalurl"),
      destination: ["originalurl"],
      printed: (field) => asText(field("secureshorturl")) ?? asText(field("shorturl")),
      // Only the link's own title: the account's fields (its owner's name) are no title.
      title: ["title"],
      tags: ["tags"],
      archived: ["archived"],
      createdAt: ["createdat"],
      password: ["password"],
    },
  ],
  [
    "dub",
    {
      recognise: (headers) =>
        (has(headers, "shortlink") && (has(headers, "url") || has(headers, "destinationurl"))) ||
        has(headers, "domain", "key", "url"),
      destination: ["url", "destinationurl"],
      // shortLink before key: the key alone is a bare code, without its host.
      printed: (field) => asText(field("shortlink")) ?? joined(field("domain"), field("key")) ?? asText(field("link")),
      // Dub keeps a key beyond ASCII punycoded (xn--caf-dma), which its QR codes carry, and shows,
      // prints and serves it as typed (café): both are printed codes.
      alsoPrinted: (field) => {
        const printed = asText(field("shortlink")) ?? joined(field("domain"), field("key"));
        const unicode = printed?.replace(/(?<=[^/]\/)xn--[a-z0-9-]+/gi, (label) => domainToUnicode(label) || label);
        return unicode && unicode !== printed ? [unicode] : [];
      },
      title: ["title"],
      tags: ["tags"],
      archived: ["archived"],
      createdAt: ["createdat"],
      password: ["password"],
    },
  ],
];

/** The mapping of the named format, or of the source whose fields the file has (auto); null reads by meaning. */
function mappingFor(format: ImportFormat, headers: ReadonlySet<string>): SourceMapping | null {
  const named = MAPPINGS.find(([name, mapping]) => (format === "auto" ? mapping.recognise(headers) : name === format));
  return named?.[1] ?? null;
}

const normalise = (header: string) => header.replace(/[\s_-]/g, "").toLowerCase();
const WANTED = Object.fromEntries(MEANINGS.map((meaning) => [meaning, COLUMNS[meaning].map(normalise)])) as Record<
  Meaning,
  string[]
>;

/** Text handed to the CSV parser at a time: the event loop serves other requests between two. */
const CHUNK_CHARS = 64 * 1024;
/** JSON records mapped between two turns of the event loop. */
const RECORDS_PER_TURN = 2_000;
/** Distinct field names a JSON file's records may use between them. */
const MAX_JSON_FIELD_NAMES = 4 * MAX_IMPORT_COLUMNS;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The rows of a CSV or JSON export, read a bounded piece at a time so other requests are served
 * meanwhile. A file that is neither (a picture, a binary), whose quoting is broken, whose rows are
 * too wide or too long, or whose JSON nests too deep is a 400 naming the problem; more rows than
 * the limit is a 413.
 */
export async function parseImportFile(text: string, mediaType: "csv" | "json", format: ImportFormat): Promise<ImportRow[]> {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (/\u0000|\uFFFD/.test(body.slice(0, 4096))) {
    throw new DomainError("invalid_request", "The file is not CSV or JSON text: send a CSV or JSON export of your links.");
  }
  return mediaType === "json" ? jsonRows(body, format) : csvRows(body, format);
}

/** Each meaning's values in a record, most preferred column first. */
type ValuesOf = (meaning: Meaning) => unknown[];

function checkColumns(headers: ReadonlySet<string>, format: ImportFormat): SourceMapping | null {
  if (format !== "auto" && format !== "generic") requireSignature(format, headers);
  if (!WANTED.destination.some((name) => headers.has(name))) {
    throw new DomainError(
      "invalid_request",
      "The file has no destination column: name it long_url, url, destination, original_url or target " +
        "(or export it again from your provider).",
    );
  }
  return format === "generic" ? null : mappingFor(format, headers);
}

/** A record's row, and one more for each further code its source printed for the same link. */
function toRows(row: number, valuesOf: ValuesOf, field: Field, mapping: SourceMapping | null): ImportRow[] {
  const first = toRow(row, valuesOf, field, mapping);
  const others = (mapping?.alsoPrinted?.(field) ?? []).filter((code) => code !== first.shortLink);
  return [first, ...others.map((shortLink) => ({ ...first, shortLink }))];
}

function toRow(row: number, valuesOf: ValuesOf, field: Field, mapping: SourceMapping | null): ImportRow {
  const values = (meaning: Meaning) => {
    if (!mapping) return valuesOf(meaning);
    return meaning === "shortLink" ? [mapping.printed(field)] : (mapping[meaning] ?? []).map(field);
  };
  return {
    row,
    // Completed as a person's typing is (lib/links/typed-destination.ts): a file may write "example.com/menu".
    destination: withScheme(asText(firstPresent(values("destination"))) ?? ""),
    shortLink: asText(firstPresent(values("shortLink"))),
    title:
      asText(firstPresent(values("title")))
        ?.replace(/\p{Cc}+/gu, " ")
        .slice(0, 200) ?? null,
    tags: tagList(firstPresent(values("tags"))),
    archived: isYes(firstPresent(values("archived"))),
    createdAt: instantOf(firstPresent(values("createdAt"))),
    password: passwordOf(firstPresent(values("password"))),
    previewTitle: previewText(firstPresent(values("previewTitle")), 200),
    previewDescription: previewText(firstPresent(values("previewDescription")), 500),
  };
}

/** A preview's text as the file has it, control characters as spaces, within the preview's bound. */
function previewText(value: unknown, max: number): string | null {
  return (
    asText(value)
      ?.replace(/\p{Cc}+/gu, " ")
      .slice(0, max) || null
  );
}

/** A password as a source writes it: text as it is (spaces are part of it); a yes-or-no or nothing is none. */
function passwordOf(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/** true, "true", "Yes" (Dub's export), 1: archived at the source. */
function isYes(value: unknown): boolean {
  return /^(true|yes|1)$/i.test(asText(value) ?? "");
}

/** An ISO date as the sources write it (Bitly's "+0000" offset too), or epoch milliseconds; anything else is no date. */
function instantOf(value: unknown): number | null {
  const text = asText(value);
  if (!text) return null;
  const time = /^\d{12,14}$/.test(text) ? Number(text) : Date.parse(text.replace(/([+-]\d\d)(\d\d)$/, "$1:$2"));
  return Number.isFinite(time) ? time : null;
}

function firstPresent(values: unknown[]): unknown {
  return values.find((value) => asText(value) !== null || (Array.isArray(value) && value.length > 0));
}

/** Only checks that the file looks like the provider's export; the columns read are the same for every format. */
function requireSignature(format: ImportFormat, headers: ReadonlySet<string>): void {
  const signature = SIGNATURES.find(([name]) => name === format)?.[1] ?? [];
  if (!signature.some((header) => headers.has(normalise(header)))) {
    throw new DomainError(
      "invalid_request",
      `The file does not look like a ${format} export (none of its columns ${signature.join(", ")}); ` +
        `send format=auto to let the columns decide.`,
    );
  }
}

/** A text, a number or a boolean as trimmed text; anything else (an object, a list) is no text. */
function asText(value: unknown): string | null {
  if (typeof value === "string") return value.trim() || null;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

/** "a|b", "a, b", ["a", "b"] or [{ name: "a" }]: the tags' names, once each. */
function tagList(value: unknown): string[] {
  const names = Array.isArray(value)
    ? value.map((tag) => asText(tag) ?? asText((tag as { name?: unknown } | null)?.name))
    : (asText(value)?.split(/[,;|]/) ?? []);
  return [...new Set(names.map((name) => name?.trim()).filter((name): name is string => Boolean(name)))];
}

function tooManyRows(): DomainError {
  return new DomainError("too_large", TOO_LARGE_SENTENCE);
}

function tooWide(count: number, what: string): DomainError {
  return new DomainError(
    "invalid_request",
    `${what} has ${count.toLocaleString("en-US")} columns; an export of links has at most ` +
      `${MAX_IMPORT_COLUMNS}: check that this is your provider's export of links.`,
  );
}

async function csvRows(text: string, format: ImportFormat): Promise<ImportRow[]> {
  const records = Readable.from(chunksOf(text)).pipe(
    parse({ relax_column_count: true, relax_quotes: true, max_record_size: MAX_IMPORT_ROW_CHARS }),
  );
  const rows: ImportRow[] = [];
  let positions: HeaderPositions | null = null;
  let count = 0;
  try {
    for await (const record of records as AsyncIterable<string[]>) {
      if (record.length > MAX_IMPORT_COLUMNS) {
        throw tooWide(record.length, positions ? `Row ${count + 2} of the CSV file` : "The CSV file's header");
      }
      if (record.every((cell) => cell.trim() === "")) continue;
      if (!positions) {
        positions = headerPositions(record, format);
        continue;
      }
      if (count++ === MAX_IMPORT_ROWS) throw tooManyRows();
      const [cells, columns] = [record, positions];
      rows.push(
        ...toRows(
          count + 1,
          (meaning) => columns.byMeaning[meaning].map((index) => cells[index]),
          (name) => cells[columns.byName.get(name) ?? -1],
          columns.mapping,
        ),
      );
    }
  } catch (error) {
    throw error instanceof CsvError ? csvRefusal(error) : error;
  } finally {
    records.destroy();
  }
  if (!positions) throw new DomainError("invalid_request", "The CSV file is empty.");
  return rows;
}

type HeaderPositions = {
  byMeaning: Record<Meaning, number[]>;
  byName: Map<string, number>;
  mapping: SourceMapping | null;
};

/** Where each meaning's and each name's column is, from the header normalised once. */
function headerPositions(header: string[], format: ImportFormat): HeaderPositions {
  const names = header.map((name) => normalise(name.trim()));
  const mapping = checkColumns(new Set(names), format);
  const positionsOf = (meaning: Meaning) =>
    WANTED[meaning].flatMap((wanted) => names.flatMap((name, index) => (name === wanted ? [index] : [])));
  const byName = new Map<string, number>();
  names.forEach((name, index) => {
    if (!byName.has(name)) byName.set(name, index);
  });
  return {
    byMeaning: Object.fromEntries(MEANINGS.map((meaning) => [meaning, positionsOf(meaning)])) as Record<Meaning, number[]>,
    byName,
    mapping,
  };
}

/** The text in pieces of about CHUNK_CHARS, never splitting a surrogate pair, each after a turn of the event loop. */
async function* chunksOf(text: string): AsyncGenerator<string> {
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + CHUNK_CHARS, text.length);
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end++;
    yield text.slice(start, end);
    start = end;
    await yieldToEventLoop();
  }
}

function csvRefusal(error: CsvError): DomainError {
  const line = (error as CsvError & { lines?: number }).lines;
  switch (error.code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return new DomainError("invalid_request", "The CSV file's quoting is broken: a quoted field is never closed.");
    case "CSV_INVALID_CLOSING_QUOTE":
    case "CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE":
      return new DomainError(
        "invalid_request",
        `The CSV file's quoting is broken on line ${line}: a closing quote is followed by more text.`,
      );
    case "CSV_MAX_RECORD_SIZE":
      return new DomainError(
        "invalid_request",
        `${line === 1 ? "The CSV file's header" : `Line ${line} of the CSV file`} is longer than ${MAX_IMPORT_ROW_CHARS.toLocaleString("en-US")} characters: ` +
          `a row of an export of links is far shorter; check that this is your provider's export.`,
      );
    default:
      return new DomainError("invalid_request", `The CSV file cannot be read on line ${line}.`);
  }
}

async function jsonRows(text: string, format: ImportFormat): Promise<ImportRow[]> {
  let parsed: unknown;
  const bounded = await boundedJsonText(text);
  try {
    parsed = JSON.parse(bounded);
  } catch {
    throw new DomainError("invalid_request", "The file is not valid JSON.");
  }
  const records = jsonRecords(parsed);
  if (records.length > MAX_IMPORT_ROWS) throw tooManyRows();
  const normalised = new Map<string, string>();
  const keysOf = (record: Record<string, unknown>, index: number): string[] => {
    const keys = Object.keys(record);
    if (keys.length > MAX_IMPORT_COLUMNS) throw tooWide(keys.length, `Link ${index + 1} of the JSON file`);
    return keys.map((key) => {
      let name = normalised.get(key);
      if (name === undefined) {
        if (normalised.size === MAX_JSON_FIELD_NAMES) {
          throw new DomainError(
            "invalid_request",
            `The JSON file's links use more than ${MAX_JSON_FIELD_NAMES} different field names: ` +
              `check that this is your provider's export of links.`,
          );
        }
        name = normalise(key);
        normalised.set(key, name);
      }
      return name;
    });
  };
  const headers = new Set<string>();
  for (const [index, record] of records.entries()) {
    if (index % RECORDS_PER_TURN === RECORDS_PER_TURN - 1) await yieldToEventLoop();
    for (const name of keysOf(record, index)) headers.add(name);
  }
  const mapping = checkColumns(headers, format);
  const rows: ImportRow[] = [];
  for (const [index, record] of records.entries()) {
    if (index % RECORDS_PER_TURN === RECORDS_PER_TURN - 1) await yieldToEventLoop();
    const fields = new Map<string, unknown>();
    for (const [key, value] of Object.entries(record)) {
      const name = normalised.get(key)!;
      if (!fields.has(name)) fields.set(name, value);
    }
    rows.push(
      ...toRows(
        index + 2,
        (meaning) => WANTED[meaning].map((name) => fields.get(name)),
        (name) => fields.get(name),
        mapping,
      ),
    );
  }
  return rows;
}

function jsonRecords(parsed: unknown): Record<string, unknown>[] {
  // An array (Rebrandly's pages), { links } (Bitly, Short.io), { data } (Kutt) or Shlink's { shortUrls: { data } }.
  const page = parsed as { links?: unknown; data?: unknown; shortUrls?: { data?: unknown } } | null;
  const list = Array.isArray(parsed) ? parsed : (page?.links ?? page?.data ?? page?.shortUrls?.data);
  if (!Array.isArray(list) || !list.every((item) => item !== null && typeof item === "object" && !Array.isArray(item))) {
    throw new DomainError(
      "invalid_request",
      "The JSON file must be an array of links (objects), or an object whose links or data is one " +
        "(or Shlink's page, whose shortUrls.data is one).",
    );
  }
  return list as Record<string, unknown>[];
}

/**
 * Refuses JSON nested deeper than MAX_IMPORT_NESTING before it is parsed: nothing that reads the
 * parsed value afterwards can then run out of stack. One pass over the text, outside strings,
 * yielding to the event loop between pieces. A raw control character inside a string (a tab or a
 * line break in a title, as Bitly's pages carry them) is written as its escape, so one title
 * does not refuse the whole page.
 */
async function boundedJsonText(text: string): Promise<string> {
  let depth = 0;
  let inString = false;
  let index = 0;
  const rawControls: number[] = [];
  while (index < text.length) {
    const end = Math.min(index + CHUNK_CHARS * 16, text.length);
    for (; index < end; index++) {
      const code = text.charCodeAt(index);
      if (inString) {
        if (code === 0x5c) index++;
        else if (code === 0x22) inString = false;
        else if (code < 0x20) rawControls.push(index);
      } else if (code === 0x22) inString = true;
      else if (code === 0x7b || code === 0x5b) {
        if (++depth > MAX_IMPORT_NESTING) {
          throw new DomainError(
            "invalid_request",
            `The JSON file nests lists and objects more than ${MAX_IMPORT_NESTING} deep; an export of links does not: ` +
              `check that this is your provider's export.`,
          );
        }
      } else if (code === 0x7d || code === 0x5d) depth--;
    }
    await yieldToEventLoop();
  }
  return rawControls.length === 0 ? text : escapedAt(text, rawControls);
}

function escapedAt(text: string, positions: number[]): string {
  const pieces: string[] = [];
  let from = 0;
  for (const position of positions) {
    pieces.push(text.slice(from, position), `\\u${text.charCodeAt(position).toString(16).padStart(4, "0")}`);
    from = position + 1;
  }
  pieces.push(text.slice(from));
  return pieces.join("");
}

/**
 * The rows as the import keeps them until its job is done: one JSON line a row, written and read
 * a bounded number of rows at a time, so 100,000 rows never hold the event loop at once.
 */
export async function storedRows(rows: ImportRow[]): Promise<string> {
  const lines: string[] = [];
  for (const [index, row] of rows.entries()) {
    if (index % RECORDS_PER_TURN === RECORDS_PER_TURN - 1) await yieldToEventLoop();
    lines.push(JSON.stringify(row));
  }
  return lines.join("\n");
}

/** The rows `storedRows` wrote; a JSON array too, as imports started before the change kept them. */
export async function rowsFromStore(source: string): Promise<ImportRow[]> {
  if (source.startsWith("[")) return JSON.parse(source) as ImportRow[];
  const rows: ImportRow[] = [];
  for (const [index, line] of source.split("\n").entries()) {
    if (index % RECORDS_PER_TURN === RECORDS_PER_TURN - 1) await yieldToEventLoop();
    if (line !== "") rows.push(JSON.parse(line) as ImportRow);
  }
  return rows;
}
