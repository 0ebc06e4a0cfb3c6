import { escapeHtml } from "@/lib/http/html";

function page(title: string, paragraphs: string[]): string {
  const body = paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1.25rem;line-height:1.55}
h1{font-size:1.5rem}
</style>
</head><body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>`;
}

/**
 * The same page for every unknown code: the address bar already shows the code, and a page that
 * repeats nothing the visitor sent is built once and cannot carry their markup.
 */
export function notFoundPage(): string {
  return page("This short link does not exist", [
    "No link has this code. Check the address for a typing mistake; codes are case-sensitive.",
  ]);
}

/** Names the reason and deliberately offers no way through to the destination. */
export function abuseWarningPage(reason: string | null): string {
  return page("This link has been blocked", [
    "We stopped this short link because its destination was found to be harmful, and we will not send you there.",
    `Reason: ${reason ?? "reported as abusive and under review"}.`,
    "If you own this link and believe this is a mistake, contact the service to ask for a review.",
  ]);
}

/** What a host that serves short links only answers for anything else (the dashboard, the site's pages). */
export function shortLinksOnlyPage(): string {
  return page("There is no page here", [
    "This address serves short links only. Check the address for a typing mistake: a short link is this address followed by its code.",
  ]);
}

export function unavailablePage(): string {
  return page("Temporarily unavailable", [
    "We could not look up this short link just now. The link still exists; please try again in a moment.",
  ]);
}
