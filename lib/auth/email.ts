import { domainToASCII } from "node:url";

const MAX_EMAIL_LENGTH = 254;
const FORBIDDEN_IN_LOCAL_PART = /[\s@\u0000-\u001f\u007f-\u009f]/;
const A_LABEL_DOMAIN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;

/**
 * One spelling for each e-mail address, so that look-alike spellings are one person: Unicode
 * compatibility forms composed (NFKC: full-width "ａ" is "a"), the local part case-folded, the
 * domain as lower-case A-labels (IDNA: "bücher.example" is "xn--bcher-kva.example") without the
 * DNS root's trailing dot. Null when `input` is not an e-mail address.
 */
export function normaliseEmail(input: string): string | null {
  const composed = input.trim().normalize("NFKC");
  const at = composed.lastIndexOf("@");
  if (at <= 0) return null;
  const localPart = caseFold(composed.slice(0, at));
  const domain = domainToASCII(composed.slice(at + 1).replace(/\.+$/, ""));
  if (FORBIDDEN_IN_LOCAL_PART.test(localPart) || !A_LABEL_DOMAIN.test(domain)) return null;
  const email = `${localPart}@${domain}`;
  return email.length <= MAX_EMAIL_LENGTH ? email : null;
}

/**
 * Full case folding as JavaScript offers it: lower-case, then upper-case (which expands "ß",
 * also when it came from "ẞ", to "SS"), then lower-case again.
 */
function caseFold(text: string): string {
  return text.toLowerCase().toUpperCase().toLowerCase().normalize("NFKC");
}
