import { requireEditEntitlement } from "@/lib/billing/entitlement";
import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import { DomainError } from "@/lib/http/errors";
import { destinationNow } from "@/lib/links/destinations";
import { toLinkView } from "@/lib/links/present";
import { PREVIEW_DESCRIPTION_MAX, PREVIEW_TITLE_MAX } from "@/lib/links/preview";
import { storedSchedule } from "@/lib/links/routing";
import type { LinkView } from "@/lib/links/schemas";
import { editLink, findEditableLink, setPreviewImage } from "@/lib/links/service";
import { INTERNAL_ADDRESS_CODE, outboundGet, vetOutboundUrl } from "@/lib/safety/outbound";
import type { Principal } from "@/lib/workspaces/types";
import { createHash } from "node:crypto";
import { encodeLogo } from "./decode";
import { MAX_LOGO_UPLOAD_BYTES } from "./limits";
import { LOGO_UPLOAD_TYPES, type LogoUploadType, MAX_PREVIEW_SIDE } from "./schemas";

/** The page is read up to this much: its head, where the tags are, comes first. */
const PAGE_BYTES = 512 * 1024;
/** Each request (the page, then its image), connection to last byte. */
const FETCH_TIMEOUT_MS = 8_000;
const INTERNAL_DESTINATION = "The destination's address is internal or private, so its page is not fetched.";

/**
 * "Fill from the destination", at the customer's request and never on a visit: the destination's
 * page is fetched once under the outbound rules of webhooks (lib/safety/outbound.ts: public
 * addresses only, the lookup pinned, redirects each checked, the bytes and the time bounded), its
 * og:title (else twitter:title, else <title>) and og:description (else description) become the
 * preview's, and its og:image, fetched the same way, goes through the upload pipeline's defences
 * like any upload. What the page lacks is left as it was.
 */
export async function fillPreviewFromDestination(principal: Principal, linkId: string): Promise<LinkView> {
  const link = await findEditableLink(principal, linkId);
  await requireEditEntitlement(principal.workspaceId);
  const destination = destinationNow({ ...link, schedule: storedSchedule(link.schedule) }, clock().now());
  const page = await fetchOnce(destination, "text/html,application/xhtml+xml", PAGE_BYTES);
  if (!/html/i.test(String(page.headers["content-type"] ?? "")))
    throw refused(`The destination answered with ${String(page.headers["content-type"] ?? "no type")}, not a web page.`);
  const tags = readTags(page.body.toString("utf8"), page.url);
  if (!tags.title && !tags.description && !tags.image)
    throw refused("The destination's page has no title, description or image to fill the preview from.");
  const image = tags.image ? await fetchImage(principal, tags.image) : null;
  await editLink(principal, link.id, {
    preview: {
      ...(tags.title && { title: tags.title.slice(0, PREVIEW_TITLE_MAX) }),
      ...(tags.description && { description: tags.description.slice(0, PREVIEW_DESCRIPTION_MAX) }),
    },
  });
  return toLinkView(image ? await setPreviewImage(principal, link.id, image) : await findEditableLink(principal, link.id));
}

async function fetchOnce(url: string, accept: string, maxBytes: number) {
  const verdict = await vetOutboundUrl(url);
  if (!verdict.ok) throw refused(verdict.reason === "internal" ? INTERNAL_DESTINATION : verdict.message);
  try {
    const answer = await outboundGet(verdict.url, {
      headers: { accept, "user-agent": `Permalink-Preview/1 (+${config().BASE_URL})` },
      timeoutMs: FETCH_TIMEOUT_MS,
      maxBytes,
      internalMessage: INTERNAL_DESTINATION,
    });
    if (answer.status < 200 || answer.status >= 300) throw refused(`The destination answered ${answer.status}.`);
    return answer;
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw refused(fetchProblem(error));
  }
}

/** The page's image through the same defences as an upload; an image that fails them is left out, with the rest filled. */
async function fetchImage(principal: Principal, url: string) {
  const answer = await fetchOnce(url, LOGO_UPLOAD_TYPES.join(","), MAX_LOGO_UPLOAD_BYTES + 1).catch(() => null);
  const type = String(answer?.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
  if (!answer || answer.truncated || !LOGO_UPLOAD_TYPES.includes(type as LogoUploadType)) return null;
  const encoded = await encodeLogo(answer.body, type as LogoUploadType, principal.workspaceId, {
    maxSide: MAX_PREVIEW_SIDE,
    format: "jpeg",
  }).catch(() => null);
  if (!encoded) return null;
  return {
    data: encoded.data,
    contentType: "image/jpeg",
    width: encoded.width,
    height: encoded.height,
    sha256: createHash("sha256").update(encoded.data).digest("hex"),
  };
}

type Tags = { title: string | null; description: string | null; image: string | null };

/** The Open Graph, Twitter Card and plain tags a page names, decoded; the image's address made absolute. */
export function readTags(html: string, pageUrl: string): Tags {
  const meta = new Map<string, string>();
  for (const [tag] of html.matchAll(/<meta\b[^>]*>/gi)) {
    const key = attribute(tag, "property") ?? attribute(tag, "name");
    const content = attribute(tag, "content");
    if (key && content !== null && !meta.has(key.toLowerCase())) meta.set(key.toLowerCase(), content);
  }
  const titleTag = /<title\b[^>]*>([^<]*)<\/title>/i.exec(html)?.[1];
  const pick = (...keys: (string | undefined)[]) =>
    keys.map((value) => (value === undefined ? "" : cleaned(value))).find((value) => value !== "") || null;
  const image = pick(meta.get("og:image"), meta.get("og:image:url"), meta.get("twitter:image"));
  return {
    title: pick(meta.get("og:title"), meta.get("twitter:title"), titleTag),
    description: pick(meta.get("og:description"), meta.get("twitter:description"), meta.get("description")),
    image: image ? absolute(image, pageUrl) : null,
  };
}

function attribute(tag: string, name: string): string | null {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  return match ? decodeEntities(match[1] ?? match[2] ?? match[3] ?? "") : null;
}

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] !== "#") return NAMED[entity.toLowerCase()] ?? whole;
    const code = entity[1] === "x" || entity[1] === "X" ? parseInt(entity.slice(2), 16) : Number(entity.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** One line of text: control and bidi characters as spaces, runs of space as one. */
function cleaned(text: string): string {
  return decodeEntities(text)
    .replace(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

function absolute(url: string, base: string): string | null {
  try {
    const resolved = new URL(url, base);
    return resolved.protocol === "https:" || resolved.protocol === "http:" ? resolved.toString() : null;
  } catch {
    return null;
  }
}

function fetchProblem(error: unknown): string {
  if (!(error instanceof Error)) return "The destination's page could not be fetched.";
  const code = "code" in error ? String(error.code) : "";
  if (error.name === "TimeoutError" || error.name === "AbortError")
    return `The destination did not answer within ${FETCH_TIMEOUT_MS / 1000} seconds.`;
  if (code === INTERNAL_ADDRESS_CODE) return INTERNAL_DESTINATION;
  if (code === "ECONNREFUSED") return "The destination refused the connection.";
  return code ? `The destination's page could not be fetched (${code}).` : error.message;
}

function refused(sentence: string): DomainError {
  return new DomainError("refused", `${sentence} Nothing was changed.`);
}
