// Apart from a type, this file imports nothing: the dashboard's live preview runs it in the browser, so it follows the server's rule.
import type { QrLevel } from "./schemas";

const LEVEL_ORDER: readonly QrLevel[] = ["L", "M", "Q", "H"];

/**
 * The error-correction level to draw at. Without a logo the default is M. A logo destroys the
 * modules it covers, so it needs at least Q: H by default, and a requested L or M is raised to Q.
 */
export function levelFor(requested: QrLevel | undefined, withLogo: boolean): QrLevel {
  if (!withLogo) return requested ?? "M";
  if (!requested) return "H";
  return LEVEL_ORDER.indexOf(requested) < LEVEL_ORDER.indexOf("Q") ? "Q" : requested;
}
