import ipaddr from "ipaddr.js";

/**
 * Workspace names travel into e-mails we send (invitations, notices), so they must not carry a
 * web address or a domain name a mail client would turn into a link: "restore at
 * permalink-help.evil.example" from our sender is phishing. The class is closed rather than listed:
 * any dotted run whose last label has two or more characters and a letter (every top-level name,
 * today's and tomorrow's, punycode included), in ASCII or ideographic full stops; a scheme; "www".
 * "v2.0", "Acme Inc." and "e.g." stay allowed. So are refused an IP address literal (four-part
 * decimal IPv4, any IPv6) and a defanged name (evil[.]example, evil(dot)example, hxxp), which people
 * copy from a security report and mail clients or readers undo.
 */
const LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{N}_-]*[\p{L}\p{N}])?`;
const DOT = "[.\u3002\uff0e\uff61]";
const DOTTED_RUN = new RegExp(`${LABEL}(?:${DOT}${LABEL})+`, "gu");
const SCHEME_OR_WWW = /[a-z][a-z0-9+.-]*:\/\/|\bwww\b/iu;
const DEFANGED = /[[({<]\s*(?:\.|dot)\s*[\])}>]|\bhxxps?\b/iu;
const ADDRESS_LIKE_RUN = new RegExp(`[0-9a-f:]*(?:${DOT}[0-9a-f:]*)*`, "giu");

export const NAME_CARRIES_ADDRESS =
  "must not contain a web address, a domain name (like example.com or example[.]com) or an IP address, " +
  "because it is quoted in the e-mails we send; write it without the dot";

export function carriesAddress(name: string): boolean {
  const folded = name.normalize("NFKC");
  if (SCHEME_OR_WWW.test(folded) || DEFANGED.test(folded) || carriesIpAddress(folded)) return true;
  return [...folded.matchAll(DOTTED_RUN)].some(([run]) => {
    const last = run.split(new RegExp(DOT, "u")).at(-1)!;
    return last.length >= 2 && /\p{L}/u.test(last);
  });
}

/** A four-part decimal IPv4 address or an IPv6 address among the name's runs of hex digits, colons and dots. */
function carriesIpAddress(folded: string): boolean {
  return [...folded.matchAll(ADDRESS_LIKE_RUN)].some(([run]) => {
    const literal = run.replace(new RegExp(DOT, "gu"), ".");
    return ipaddr.IPv4.isValidFourPartDecimal(literal) || (literal.includes(":") && ipaddr.IPv6.isValid(literal));
  });
}

/**
 * How an e-mail names the workspace: quoted when its name is plain, otherwise not at all (a name
 * stored before this rule, or a personal workspace named after its user's address).
 */
export function workspaceInEmail(name: string): string {
  return carriesAddress(name) ? "a workspace" : `the workspace "${name}"`;
}
