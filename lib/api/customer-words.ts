/**
 * The dashboard's one place that turns the API's sentences into words a customer acts on. The API
 * keeps its precise sentences (a method and path to call, a setting's name, a standard's number);
 * every refusal and status line the dashboard shows passes through `inCustomerWords` first.
 * Pure, so both server actions and client components use it.
 */

type Rewrite = readonly [pattern: RegExp, replacement: string];

const METHOD = "(?:GET|POST|PUT|PATCH|DELETE)";

/** Where the API names its call, the dashboard names its own place for the same thing. */
const PLACES: readonly Rewrite[] = [
  [/Subscribe with POST \/api\/billing\/checkout/g, "Choose a plan in Billing"],
  [/(?:in )?the billing portal \(POST \/api\/billing\/portal\)/g, "in Billing"],
  [/re-send it \(POST \/api\/members\/[^)]*\/resend\) or revoke it/g, "Re-send it or revoke it under Invitations"],
  [/ask for a check \(POST \/api\/domains\/[^)]*\/verify\)/g, "choose Verify now"],
  [/verify it \(POST \/api\/domains\/[^)]*\/verify\)/g, "verify it on the Domains page"],
  [/delete it \(DELETE \/api\/domains\/[^)]*\)/g, "remove it"],
  [/\(POST \/api\/links with domain_id [^)]*\)/g, "(choose it as the domain when you create a link)"],
  [/ \(domain_id\)/g, ""],
  [/\(validation_errors says what changed\)/g, "(what the last check found says what changed)"],
  [/what validation_errors names/g, "what the last check found names"],
  [/revoke it \(DELETE \/api\/billing\/claim\)/g, "revoke it in Settings"],
  [/upload one with PUT \/api\/links\/\{id\}\/logo or PUT \/api\/workspaces\/logo/g, "upload one first"],
  [/upload one with PUT \/api\/links\/\{id\}\/logo/g, "upload one on this page"],
  [/upload its image with PUT \/api\/links\/\{id\}\/preview\/image/g, "upload its image in its Preview card"],
  [/upload one with PUT \/api\/workspaces\/logo/g, "upload one first"],
  [/, or leave out logo=true/g, ""],
  [/The workspace named in X-Workspace-Id/g, "That workspace"],
  [/The domain_id names no/g, "The chosen domain is no"],
  [/group_by=served cannot/g, "The breakdown by destination cannot"],
];

/** Standards by their number, and the web's own terms, in everyday words. */
const TERMS: readonly Rewrite[] = [
  [/an ISO 3166-1 alpha-2 country code/g, "a two-letter country code"],
  [/an ISO 3166 country code/g, "a two-letter country code"],
  [/an ISO 8601 date \(([^)]*)\) or time \(([^,)]*)[^)]*\)/g, "a date such as $1 or a time such as $2"],
  [/is not an RFC 3339 date-time/g, "is not a date and time"],
  [
    /uses the "([^"]+)" scheme; only http and https links are allowed/g,
    "starts with $1: and only web addresses (http:// or https://) can be short links",
  ],
  [/without a scheme or path/g, "without https:// or a path"],
  [
    / \((?:SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|CERT_HAS_EXPIRED|ERR_TLS_CERT_ALTNAME_INVALID)\)/g,
    ": the receiver's HTTPS certificate is not one a browser would trust",
  ],
];

/** Whatever is left in brackets, a call, a setting's name or an address range, tells a customer nothing to do. */
const LEFTOVERS: readonly Rewrite[] = [
  [/ ?\(Authorization: [^)]*\)/g, ""],
  [new RegExp(` ?\\(${METHOD} \\/[^)]*\\)`, "g"), ""],
  [/ ?\((?:[A-Z][A-Z0-9]*(?:_[A-Z0-9*]+)+(?:,? (?:and|or|nor) |, )?)+(?: (?:is|are) not set| unset)?\)/g, ""],
  [/ ?\((?:[0-9a-f.:]+\/\d{1,3}(?:, )?)+\)/g, ""],
];

export function inCustomerWords(sentence: string): string {
  return [...PLACES, ...TERMS, ...LEFTOVERS].reduce(
    (text, [pattern, replacement]) => text.replace(pattern, replacement),
    sentence,
  );
}

/** What a customer should never read: the test of every page and refusal the dashboard shows fails on any of these. */
export const API_WORDS: readonly { what: string; pattern: RegExp }[] = [
  { what: "a method and path", pattern: new RegExp(`\\b${METHOD} \\/\\S*`) },
  { what: "an environment variable's name", pattern: /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/ },
  { what: "a standard's number", pattern: /\b(?:ISO|RFC|IEEE|ITU|ECMA)[- ]?\d+/ },
  { what: "an address range", pattern: /\b\d{1,3}(?:\.\d{1,3}){3}\/\d{1,2}\b|[0-9a-f]*::[0-9a-f:]*\/\d{1,3}\b/ },
  { what: "the word scheme", pattern: /\bschemes?\b/ },
  { what: "a header's name", pattern: /\bX-[A-Z][A-Za-z]*-[A-Z][A-Za-z]*\b/ },
];

/** The API words in a text, each as what it is and what was found, for a failing test to name. */
export function apiWordsIn(text: string): string[] {
  return API_WORDS.flatMap(({ what, pattern }) => {
    const found = pattern.exec(text);
    return found ? [`${what}: "${found[0]}"`] : [];
  });
}
