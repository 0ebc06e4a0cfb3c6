import { destinationsOf, type Holder, type Routing } from "@/lib/links/destinations";
import type { Verdict } from "@/lib/safety/verdict";

export type MaliciousVerdict = Extract<Verdict, { status: "malicious" }>;

/** A safety verdict about a whole link, and for a malicious one the destination it was about and where the link holds it. */
export type LinkVerdict =
  | { status: "clean" }
  | { status: "unknown" }
  | { status: "malicious"; verdict: MaliciousVerdict; destination: string; holder: Holder };

/**
 * The live check of every destination the link holds (destinationsOf), one after the other so a
 * link costs one check at a time: the first malicious one decides; the link is clean only when
 * every destination is; otherwise unknown. A check that fails counts as unknown.
 */
export async function checkLink(link: Routing, now: number, check: (url: string) => Promise<Verdict>): Promise<LinkVerdict> {
  let unknown = false;
  for (const { destination, holder } of destinationsOf(link, now)) {
    const verdict = await check(destination).catch((): Verdict => ({ status: "unknown", source: "chain", reason: "error" }));
    if (verdict.status === "malicious") return { status: "malicious", verdict, destination, holder };
    if (verdict.status === "unknown") unknown = true;
  }
  return unknown ? { status: "unknown" } : { status: "clean" };
}
