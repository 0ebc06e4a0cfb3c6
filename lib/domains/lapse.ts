import { getDomain } from "tldts";

const DAY_MS = 24 * 60 * 60_000;

/** The warnings before a lapse, most distant first: each is sent once per expiry date, the nearest one reached only. */
export const WARNING_DAYS = [30, 7, 1] as const;

/** How far ahead a lapse is warned about (and shown on the domain card). */
export const WARNING_HORIZON_MS = WARNING_DAYS[0] * DAY_MS;

/** The registrable domain of a hostname (go.shop.example.co.uk → example.co.uk), from the public suffix list (tldts). */
export function registrableDomain(hostname: string): string | null {
  return getDomain(hostname, { allowPrivateDomains: false });
}

/** Days left before a lapse, to the nearest day and at least 1 while it has not lapsed; 0 once it has. */
export function daysLeft(expiresAt: number, now: number): number {
  const remaining = expiresAt - now;
  return remaining <= 0 ? 0 : Math.max(1, Math.round(remaining / DAY_MS));
}

/** The nearest warning a lapse `remainingMs` away has reached (30, 7 or 1 days; 1 once it has lapsed), or null. */
export function warningReached(remainingMs: number): number | null {
  let reached: number | null = null;
  for (const days of WARNING_DAYS) if (remainingMs <= days * DAY_MS) reached = days;
  return reached;
}
