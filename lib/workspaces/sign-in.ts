import { normaliseEmail } from "@/lib/auth/email";
import type { SessionIdentity } from "@/lib/auth/session-tokens";
import { clock } from "@/lib/clock";
import { config } from "@/lib/config";
import type { Adapter, AdapterAccount, AdapterUser } from "next-auth/adapters";
import * as store from "./store";
import type { Principal } from "./types";

/**
 * The dashboard's people are the built-in identity provider's users: issuer AUTH_ISSUER, subject
 * the normalised e-mail address. A session token minted for the same address (`npm run
 * session-token`) therefore names the same user row, personal workspace and memberships.
 */
export function dashboardIdentity(email: string): SessionIdentity {
  const normalised = normaliseEmail(email);
  if (normalised === null) throw new RangeError("A sign-in needs a valid e-mail address.");
  return { issuer: config().AUTH_ISSUER, subject: normalised, email: normalised, emailVerified: true };
}

/** Signs in as an e-mail address the caller has proven (a magic link, a provider's verified address, development). */
export async function signInAs(email: string): Promise<AdapterUser> {
  const identity = dashboardIdentity(email);
  const { userId } = await store.ensureUser(identity);
  return { id: userId, email: identity.subject, emailVerified: new Date() };
}

/**
 * next-auth's store, on this service's own tables: users are the API's users (created with their
 * personal workspace by ensureUser), pending e-mail links are sign_in_tokens (next-auth hands us
 * the token already hashed with the secret), OAuth accounts are sign_in_accounts. Sessions are
 * next-auth's signed JWT cookie, which names a dashboard_sessions row (its sid) so it can be ended.
 */
export function signInAdapter(): Adapter {
  return {
    createUser: (user: Omit<AdapterUser, "id">) => signInAs(user.email),
    getUser: async (id) => toAdapterUser(await store.findSignInUser(id)),
    getUserByEmail: async (email) => {
      const normalised = normaliseEmail(email);
      if (normalised === null) return null;
      return toAdapterUser(await store.findSignInUserByIdentity(config().AUTH_ISSUER, normalised));
    },
    getUserByAccount: async ({ provider, providerAccountId }) => {
      return toAdapterUser(await store.findSignInUserByAccount(provider, providerAccountId));
    },
    // Nothing next-auth might update (name, image, emailVerified) is stored: our users are verified by construction.
    updateUser: async (user) => {
      const row = toAdapterUser(await store.findSignInUser(user.id));
      if (!row) throw new Error("The user to update does not exist.");
      return row;
    },
    linkAccount: async (account: AdapterAccount) => {
      await store.linkSignInAccount(account.provider, account.providerAccountId, account.userId);
    },
    createVerificationToken: async (token) => {
      await store.saveSignInToken(token.identifier, token.token, token.expires);
      return token;
    },
    useVerificationToken: async ({ identifier, token }) => {
      const row = await store.useSignInToken(identifier, token);
      return row ? { identifier, token, expires: row.expiresAt } : null;
    },
  };
}

function toAdapterUser(row: { id: string; email: string | null; issuer: string } | null): AdapterUser | null {
  if (!row?.email || row.issuer !== config().AUTH_ISSUER) return null;
  return { id: row.id, email: row.email, emailVerified: new Date() };
}

export type DashboardUser = { userId: string; email: string; personalWorkspaceId: string };

/** Records a new dashboard sign-in and returns the id its cookie carries (sid). */
export function startDashboardSession(userId: string): Promise<string> {
  return store.startDashboardSession(userId);
}

/** Signing out: the session's cookie, and every copy of it, stops signing in. */
export function endDashboardSession(sessionId: string): Promise<void> {
  return store.endDashboardSession(sessionId, new Date(clock().now()));
}

/** "Sign out everywhere": every dashboard session of the person ends, on every device. */
export function endAllDashboardSessions(userId: string): Promise<void> {
  return store.endAllDashboardSessions(userId, new Date(clock().now()));
}

/** The signed-in person behind a dashboard session's user id; null when the row is gone. */
/**
 * Who a dashboard cookie signs in: its user, while the session it names (its sid) has not ended.
 * A cookie copied before its owner signed out, or from before sessions were recorded, signs in nobody.
 */
export async function findDashboardUser(userId: string, sessionId: string): Promise<DashboardUser | null> {
  const user = await store.findUserOfLiveSession(sessionId, userId);
  if (!user?.email || !user.personalWorkspace) return null;
  return { userId: user.id, email: user.email, personalWorkspaceId: user.personalWorkspace.id };
}

/**
 * The principal a dashboard request acts as: the chosen workspace when the user is a member of it,
 * else their personal workspace, exactly as a session token with X-Workspace-Id resolves.
 */
export async function dashboardPrincipal(user: DashboardUser, chosenWorkspaceId: string | undefined): Promise<Principal> {
  if (chosenWorkspaceId && chosenWorkspaceId !== user.personalWorkspaceId) {
    const role = await store.findRole(chosenWorkspaceId, user.userId);
    if (role) return { kind: "session", userId: user.userId, workspaceId: chosenWorkspaceId, role };
  }
  return { kind: "session", userId: user.userId, workspaceId: user.personalWorkspaceId, role: "owner" };
}
