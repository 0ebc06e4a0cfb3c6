import { visitorAddress } from "@/lib/analytics/visitors";
import { clientNetwork, keyedHash } from "@/lib/http/client-address";
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Outcome, ResolvedLink, Visit } from "./types";

/** The cookie that spares a visitor a second entry: one per code (its Path), signed, short-lived. */
export const PASS_COOKIE = "permalink_pass";
export const PASS_LIFETIME_SECONDS = 30 * 60;

/** What a password attempt may be answered with besides a redirect. */
export type GuessBudget = { ok: true } | { ok: false; retryAfterSeconds: number };

/** What the password gate needs beyond the link: the slow hash's check, the guess limiter and a memory of right passwords. */
export type PasswordDeps = {
  verify(password: string, passwordHash: string): Promise<boolean>;
  /** Spends one guess from the code's budget and the client network's (in that order); the first refusal wins. */
  spendGuess(code: string, network: string): Promise<GuessBudget>;
  /** Passwords found right lately, by `rememberedKey`: asked again (an agent's header on every visit), no guess is spent and no hash run. */
  remembered: { has(key: string): boolean; add(key: string): void };
};

/** Let through: `cookie` is the pass to set when a password (not a pass) let the visitor in. */
export type Granted = { kind: "granted"; cookie: string | null };

function mac(link: ResolvedLink, expiresAt: number): string {
  // Keyed by the stored hash: only who can read the database could forge one, and a new password ends every pass.
  return createHmac("sha256", link.passwordHash!).update(`${link.id}\n${expiresAt}`).digest("base64url");
}

/** A pass for this link until `now` plus the lifetime: `expiry.mac`, expiry in epoch seconds. */
export function issuePass(link: ResolvedLink, now: number): string {
  const expiresAt = Math.floor(now / 1000) + PASS_LIFETIME_SECONDS;
  return `${expiresAt}.${mac(link, expiresAt)}`;
}

/**
 * Whether the request's cookie holds a pass for this link that has not expired. Every pass it
 * carries is tried: a code below another (`menu` and `menu/drinks`) gets both codes' passes.
 */
export function holdsPass(link: ResolvedLink, cookieHeader: string | null, now: number): boolean {
  if (!cookieHeader || !cookieHeader.includes(PASS_COOKIE)) return false;
  return cookieHeader.split(";").some((pair) => {
    const [name, value] = pair.split("=", 2);
    return name!.trim() === PASS_COOKIE && value !== undefined && isPassFor(link, value.trim(), now);
  });
}

function isPassFor(link: ResolvedLink, pass: string, now: number): boolean {
  const dot = pass.indexOf(".");
  if (dot <= 0) return false;
  const expiresAt = Number(pass.slice(0, dot));
  if (!Number.isSafeInteger(expiresAt) || expiresAt * 1000 <= now) return false;
  const given = Buffer.from(pass.slice(dot + 1));
  const expected = Buffer.from(mac(link, expiresAt));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function rememberedKey(link: ResolvedLink, password: string): string {
  return `${link.id}\n${createHmac("sha256", link.passwordHash!).update(password).digest("base64url")}`;
}

/**
 * From memory alone: granted when the visit holds a pass, the form when it sends no password,
 * undefined when a password was sent (checking it takes the slow hash and the limiter).
 */
export function passwordGateFromMemory(link: ResolvedLink, visit: Visit, now: number): Granted | Outcome | undefined {
  if (holdsPass(link, visit.cookie, now)) return { kind: "granted", cookie: null };
  if (visit.password === null) return { kind: "password_required", link, wrong: false };
  return undefined;
}

/**
 * The password gate: a pass or the right password lets the visit through; none asks for it; a
 * wrong one says so. Each attempt not known right spends a guess from the code's and the client
 * network's budgets before the hash is run, so neither guessing nor hashing can be driven without
 * bound; over budget the visitor is told when to try again. A visitor let in is given a pass.
 */
export async function passwordGate(
  link: ResolvedLink,
  visit: Visit,
  now: number,
  deps: PasswordDeps,
): Promise<Granted | Outcome> {
  const known = passwordGateFromMemory(link, visit, now);
  if (known !== undefined) return known;
  const password = visit.password!;
  const remembered = rememberedKey(link, password);
  if (!deps.remembered.has(remembered)) {
    const network = keyedHash(clientNetwork(visitorAddress(visit) ?? "unknown"));
    const budget = await deps.spendGuess(`${link.host ?? ""}/${link.slug}`, network);
    if (!budget.ok) return { kind: "password_limited", link, retryAfterSeconds: budget.retryAfterSeconds };
    if (!(await deps.verify(password, link.passwordHash!))) return { kind: "password_required", link, wrong: true };
    deps.remembered.add(remembered);
  }
  return { kind: "granted", cookie: issuePass(link, now) };
}
