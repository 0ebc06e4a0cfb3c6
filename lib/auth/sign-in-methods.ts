import { config, isLocalDeployment } from "@/lib/config";
import { printsMessages } from "@/lib/email";

/** The development sign-in: one click as any address, never in production. */
export const DEVELOPMENT_PROVIDER_ID = "development";

export type SignInMethod = { id: string; name: string; kind: "email" | "oauth" | "development" };

/** Whether this deployment prints sign-in links to its output instead of e-mailing them (a local one without SMTP_URL). */
export function signInLinksPrinted(): boolean {
  return !config().SMTP_URL && signInMethods().some((method) => method.kind === "email");
}

/** Which ways to sign in this deployment offers, from its configuration. */
export function signInMethods(): SignInMethod[] {
  const { GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET, GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET, NODE_ENV, SMTP_URL } = config();
  const oauth = [
    ...(GITHUB_CLIENT_ID && GITHUB_CLIENT_SECRET ? [{ id: "github", name: "GitHub", kind: "oauth" as const }] : []),
    ...(GOOGLE_CLIENT_ID && GOOGLE_CLIENT_SECRET ? [{ id: "google", name: "Google", kind: "oauth" as const }] : []),
  ];
  // Without a mail server, only where the person reading the server's output is the one signing in:
  // a local deployment with no other way configured (lib/email printsMessages). A public one never prints a sign-in link.
  const printedLinks = !SMTP_URL && oauth.length === 0 && isLocalDeployment() && printsMessages();
  return [
    ...(SMTP_URL || printedLinks ? [{ id: "email", name: "E-mail", kind: "email" as const }] : []),
    ...oauth,
    ...(NODE_ENV !== "production"
      ? [{ id: DEVELOPMENT_PROVIDER_ID, name: "Development sign-in", kind: "development" as const }]
      : []),
  ];
}
