import { normaliseEmail } from "@/lib/auth/email";
import { DEVELOPMENT_PROVIDER_ID, signInMethods } from "@/lib/auth/sign-in-methods";
import { config } from "@/lib/config";
import { sendEmail, sender } from "@/lib/email";
import { sameOriginUrl } from "@/lib/http/return-url";
import { endDashboardSession, signInAdapter, signInAs, startDashboardSession } from "@/lib/workspaces/sign-in";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import EmailProvider from "next-auth/providers/email";
import GitHubProvider from "next-auth/providers/github";
import GoogleProvider from "next-auth/providers/google";

/** How long a magic link works. */
const MAGIC_LINK_MINUTES = 15;

/**
 * next-auth for the dashboard. Every method ends as the same user: the built-in provider's
 * (AUTH_ISSUER, normalised e-mail), with the personal workspace the API knows (lib/workspaces/sign-in.ts).
 * OAuth providers count only with an address they vouch for (signIn below), which is why linking
 * a provider account to the existing user of that address is safe.
 */
export function authOptions({ overHttps = config().BASE_URL.startsWith("https:") } = {}): NextAuthOptions {
  const settings = config();
  const methods = new Set(signInMethods().map((method) => method.id));
  return {
    secret: settings.AUTH_SECRET,
    adapter: signInAdapter(),
    session: { strategy: "jwt" },
    // Secure (and __Secure-/__Host- prefixed) cookies whenever the request came over HTTPS (lib/http/client-address.ts cameOverHttps).
    useSecureCookies: overHttps,
    pages: { signIn: "/signin", verifyRequest: "/signin/check-email", error: "/signin" },
    providers: [
      ...(methods.has("email")
        ? [
            EmailProvider({
              from: sender(),
              maxAge: MAGIC_LINK_MINUTES * 60,
              normalizeIdentifier: (identifier) => {
                const email = normaliseEmail(identifier);
                if (email === null) throw new Error("That is not an e-mail address.");
                return email;
              },
              sendVerificationRequest: async ({ identifier, url }) => {
                await sendEmail(magicLinkMessage(identifier, url));
              },
            }),
          ]
        : []),
      ...(methods.has("github")
        ? [
            GitHubProvider({
              clientId: settings.GITHUB_CLIENT_ID!,
              clientSecret: settings.GITHUB_CLIENT_SECRET!,
              allowDangerousEmailAccountLinking: true,
            }),
          ]
        : []),
      ...(methods.has("google")
        ? [
            GoogleProvider({
              clientId: settings.GOOGLE_CLIENT_ID!,
              clientSecret: settings.GOOGLE_CLIENT_SECRET!,
              allowDangerousEmailAccountLinking: true,
            }),
          ]
        : []),
      ...(methods.has(DEVELOPMENT_PROVIDER_ID)
        ? [
            CredentialsProvider({
              id: DEVELOPMENT_PROVIDER_ID,
              name: "Development sign-in",
              credentials: { email: { label: "E-mail address", type: "email" } },
              authorize: async (credentials) => {
                // Checked again per request: a production process never signs anyone in this way.
                if (config().NODE_ENV === "production") return null;
                const email = normaliseEmail(credentials?.email ?? "");
                return email ? signInAs(email) : null;
              },
            }),
          ]
        : []),
    ],
    events: {
      signOut: async ({ token }) => {
        if (typeof token?.sid === "string") await endDashboardSession(token.sid);
      },
    },
    callbacks: {
      signIn: async ({ account, profile }) => {
        if (account?.provider === "google") return (profile as { email_verified?: boolean } | undefined)?.email_verified === true;
        if (account?.provider === "github") return githubAddressVerified(account.access_token, profile?.email);
        return true;
      },
      // Each sign-in is a dashboard_sessions row the cookie names (sid), so signing out can end it for every copy of the cookie.
      jwt: async ({ token, user }) => (user ? { ...token, sid: await startDashboardSession(user.id) } : token),
      session: ({ session, token }) => ({ ...session, user: { ...session.user, id: token.sub } }),
      // Every callbackUrl next-auth sees (query, form, cookie) stays on our origin; its default throws (500) on "x".
      redirect: ({ url, baseUrl }) => sameOriginUrl(url, baseUrl) ?? baseUrl,
    },
  };
}

/** GitHub's profile may carry an unverified address: only a verified one of the account signs in. */
async function githubAddressVerified(accessToken: string | undefined, email: string | null | undefined): Promise<boolean> {
  if (!accessToken || !email) return false;
  const response = await fetch("https://api.github.com/user/emails", {
    headers: { Authorization: `Bearer ${accessToken}`, "User-Agent": "permalink", Accept: "application/vnd.github+json" },
  });
  if (!response.ok) return false;
  const addresses = (await response.json()) as { email: string; verified: boolean }[];
  return addresses.some((address) => address.verified && normaliseEmail(address.email) === normaliseEmail(email));
}

function magicLinkMessage(to: string, url: string) {
  const host = new URL(url).host;
  const href = url.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
  return {
    to,
    subject: `Sign in to Permalink (${host})`,
    text:
      `Sign in to Permalink at ${host} with this link (it works once, for ${MAGIC_LINK_MINUTES} ` +
      `minutes):\n\n${url}\n\nIf you did not ask for it, ignore this message.\n`,
    html:
      `<p>Sign in to Permalink at ${host}:</p><p><a href="${href}">Sign in</a></p><p>The link works ` +
      `once, for ${MAGIC_LINK_MINUTES} minutes. If you did not ask for it, ignore this message.</p>`,
  };
}
