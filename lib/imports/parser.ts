import { DomainError } from "@/lib/http/errors";
import { type ImportFormat, MAX_IMPORT_ROWS, TOO_LARGE_SENTENCE } from "./schemas";

/** One row of a provider's export, in our words; `row` is its number as a spreadsheet shows it (the header is row 1). */
export type ImportRow = {
  row: number;
  destination: string;
  shortLink: string | null;
  title: string | null;
  tags: string[];
};

/** The header names each provider's export uses, by meaning; compared without case, spaces, underscores or hyphens. */
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
} as const;

/** What each format's export is recognised by: a header only that provider writes. */
const SIGNATURES: readonly [ImportFormat, readonly string[]][] = [
  ["bitly", ["bitlink", "long_url", "custom_bitlinks"]],
  ["shlink", ["shortCode", "longUrl"]],
  ["kutt", ["address", "target"]],
  ["rebrandly", ["slashtag", "destination"]],
  ["shortio", ["originalURL", "shortURL"]],
  ["dub", ["key", "url", "domain"]],
];

const normalise = (header: string) => header.replace(/[\s_-]/g, "").toLowerCase();

/**
 * The rows of a CSV or JSON export. A file that is neither (a picture, a binary) or whose quoting
 * is broken is a 400 naming the line; more rows than the limit is a 413.
 */
export function parseImportFile(text: string, mediaType: "csv" | "json", format: ImportFormat): ImportRow[] {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (/\u0000|\uFFFD/.test(body.slice(0, 4096))) {
    throw new DomainError("invalid_request", "The file is not CSV or JSON text: send a CSV or JSON export of your links.");
  }
  const records = mediaType === "json" ? jsonRecords(body) : csvRecords(body);
  if (records.length > MAX_IMPORT_ROWS) throw new DomainError("too_large", TOO_LARGE_SENTENCE);
  return toRows(records, format);
}

function toRows(records: Record<string, unknown>[], format: ImportFormat): ImportRow[] {
  const headers = new Set(records.flatMap((record) => Object.keys(record).map(normalise)).slice(0, 200));
  if (format !== "auto" && format !== "generic") requireSignature(format, headers);
  const pick = (record: Record<string, unknown>, names: readonly string[]) => {
    const wanted = new Set(names.map(normalise));
    for (const [key, value] of Object.entries(record)) {
      if (wanted.has(normalise(key)) && value !== null && value !== undefined && String(value).trim() !== "") return value;
    }
    return undefined;
  };
  if (![...headers].some((header) => COLUMNS.destination.map(normalise).includes(header))) {
    throw new DomainError(
      "invalid_request",
      "The file has no destination column: name it long_url, url, destination, original_url or target " +
        "(or export it again from your provider).",
    );
  }
  return records.map((record, index) => ({
    row: index + 2,
    destination: String(pick(record, COLUMNS.destination) ?? "").trim(),
    shortLink: asText(pick(record, COLUMNS.shortLink)),
    title:
      asText(pick(record, COLUMNS.title))
        ?.replace(/\p{Cc}+/gu, " ")
        .slice(0, 200) ?? null,
    tags: tagList(pick(record, COLUMNS.tags)),
  }));
}

/** Only checks that the file looks like the provider's export; the columns read are the same for every format. */
function requireSignature(format: ImportFormat, headers: Set<string>): void {
  const signature = SIGNATURES.find(([name]) => name === format)?.[1] ?? [];
  if (!signature.some((header) => headers.has(normalise(header)))) {
    throw new DomainError(
      "invalid_request",
      `The file does not look like a ${format} export (none of its columns ${signature.join(", ")}); ` +
        `send format=auto to let the columns decide.`,
    );
  }
}

function asText(value: unknown): string | null {
  return value === undefined ? null : String(value).trim() || null;
}

function tagList(value: unknown): string[] {
  const names = Array.isArray(value) ? value.map(String) : value === undefined ? [] : String(value).split(/[,;|]/);
  return [...new Set(names.map((name) => name.trim()).filter((name) => name !== ""))];
}

function jsonRecords(text: string): Record<string, unknown>[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DomainError("invalid_request", "The file is not valid JSON.");
  }
  const list = Array.isArray(parsed)
    ? parsed
    : ((parsed as { links?: unknown; data?: unknown } | null)?.links ?? (parsed as { data?: unknown } | null)?.data);
  if (!Array.isArray(list) || !list.every((item) => item !== null && typeof item === "object" && !Array.isArray(item))) {
    throw new DomainError(
      "invalid_request",
      "The JSON file must be an array of links (objects), or an object whose links or data is one.",
    );
  }
  return list as Record<string, unknown>[];
}

/** RFC 4180 with either line end: quoted fields may hold commas, quotes ("") and line breaks. */
function csvRecords(text: string): Record<string, unknown>[] {
  const lines = csvLines(text);
  const [header, ...rows] = lines;
  if (!header || header.every((cell) => cell.trim() === "")) throw new DomainError("invalid_request", "The CSV file is empty.");
  return rows
    .filter((row) => row.some((cell) => cell.trim() !== ""))
    .map((row) => Object.fromEntries(header.map((name, index) => [name.trim(), row[index] ?? ""])));
}

function csvLines(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  let line = 1;
  let quoteLine = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') {
        quoted = false;
        const next = text[index + 1];
        if (next !== undefined && next !== "," && next !== "\r" && next !== "\n") {
          throw new DomainError(
            "invalid_request",
            `The CSV file's quoting is broken on line ${line}: a closing quote is followed by more text.`,
          );
        }
      } else {
        if (char === "\n") line++;
        field += char;
      }
    } else if (char === '"' && field === "") {
      quoted = true;
      quoteLine = line;
    } else if (char === ",") {
      record.push(field);
      field = "";
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && text[index + 1] === "\n") index++;
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      line++;
      if (records.length > MAX_IMPORT_ROWS + 1) throw new DomainError("too_large", TOO_LARGE_SENTENCE);
    } else {
      field += char;
    }
  }
  if (quoted)
    throw new DomainError(
      "invalid_request",
      `The CSV file's quoting is broken: the quote opened on line ${quoteLine} is never closed.`,
    );
  if (field !== "" || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records;
}
