/**
 * Workspace names travel into e-mails we send (invitations, notices), so they must not carry a
 * web address or a domain name a mail client would turn into a link: "restore at
 * permalink-help.evil.example" from our sender is phishing. The class is closed rather than listed:
 * any dotted run whose last label has two or more characters and a letter (every top-level name,
 * today's and tomorrow's, punycode included), in ASCII or ideographic full stops; a scheme; "www".
 * "v2.0", "Acme Inc." and "e.g." stay allowed.
 */
const LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{N}_-]*[\p{L}\p{N}])?`;
const DOT = "[.\u3002\uff0e\uff61]";
const DOTTED_RUN = new RegExp(`${LABEL}(?:${DOT}${LABEL})+`, "gu");
const SCHEME_OR_WWW = /[a-z][a-z0-9+.-]*:\/\/|\bwww\b/iu;

export const NAME_CARRIES_ADDRESS =
  "must not contain a web address or a domain name (like example.com), because it is quoted in the " +
  "e-mails we send; write it without the dot";

export function carriesAddress(name: string): boolean {
  const folded = name.normalize("NFKC");
  if (SCHEME_OR_WWW.test(folded)) return true;
  return [...folded.matchAll(DOTTED_RUN)].some(([run]) => {
    const last = run.split(new RegExp(DOT, "u")).at(-1)!;
    return last.length >= 2 && /\p{L}/u.test(last);
  });
}

/**
 * How an e-mail names the workspace: quoted when its name is plain, otherwise not at all (a name
 * stored before this rule, or a personal workspace named after its user's address).
 */
export function workspaceInEmail(name: string): string {
  return carriesAddress(name) ? "a workspace" : `the workspace "${name}"`;
}
