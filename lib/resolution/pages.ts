import { escapeHtml } from "@/lib/http/html";

function page(title: string, paragraphs: string[], after = ""): string {
  const body = paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`).join("\n") + after;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1.25rem;line-height:1.55}
h1{font-size:1.5rem}
label{display:block;font-weight:600;margin:1.5rem 0 .4rem}
input{font:inherit;padding:.5rem .6rem;width:100%;max-width:20rem;box-sizing:border-box;border:1px solid #666;border-radius:4px}
button{font:inherit;margin-top:.9rem;padding:.5rem 1.1rem;border:0;border-radius:4px;background:#1d4ed8;color:#fff;cursor:pointer}
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

/** A custom domain's root or unknown code whose destination a safety check found harmful since its owner set it. */
export function blockedDestinationPage(reason: string): string {
  return page("This address has been blocked", [
    "We stopped sending visitors of this address where its owner had set, because that destination was found to be harmful, and we will not send you there.",
    `Reason: ${reason}.`,
    "If you own this domain, choose another destination for it in the dashboard.",
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

/**
 * A protected link's page: its title when it has one, what happened (`message`), and a password
 * field posted back to the same address (the form has no action: the code and its query stay as
 * they were). No script, no dashboard asset: the short host's CSP lets nothing else in.
 */
export function passwordPage(title: string | null, message: string): string {
  const form = `
<form method="post">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
<br><button type="submit">Continue</button>
</form>`;
  return page(title ?? "This link is protected", [message], form);
}

export function formRefusedPage(): string {
  return page("This form could not be read", [
    "What was sent is not a short link's password form, or it took too long to arrive. Go back and enter the password again.",
  ]);
}

/**
 * What a link-preview crawler is shown for a link with a preview: Open Graph and Twitter Card tags
 * (the image, when there is one, as a large card), and the redirect itself (a meta refresh and a
 * link), so anything that follows the page still arrives; without a location (a scan-limited
 * link), only a link to the short URL, which counts whoever follows it. No script: the short host's CSP.
 */
export function previewPage(
  preview: { title: string | null; description: string | null; imageUrl: string | null },
  location: string | null,
  shortUrl: string,
): string {
  const title = preview.title ?? shortUrl;
  const tags: [string, string, string][] = [
    ["property", "og:type", "website"],
    ["property", "og:url", shortUrl],
    ["property", "og:title", title],
    ["name", "twitter:card", preview.imageUrl ? "summary_large_image" : "summary"],
    ["name", "twitter:title", title],
  ];
  if (preview.description !== null)
    tags.push(
      ["name", "description", preview.description],
      ["property", "og:description", preview.description],
      ["name", "twitter:description", preview.description],
    );
  if (preview.imageUrl !== null)
    tags.push(["property", "og:image", preview.imageUrl], ["name", "twitter:image", preview.imageUrl]);
  const meta = tags.map(([kind, name, content]) => `<meta ${kind}="${name}" content="${escapeHtml(content)}">`).join("\n");
  const destination = escapeHtml(location ?? shortUrl);
  const refresh = location === null ? "" : `\n<meta http-equiv="refresh" content="0; url=${destination}">`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
${meta}${refresh}
</head><body><p><a href="${destination}">${destination}</a></p>
</body></html>`;
}
