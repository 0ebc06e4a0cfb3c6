import type { Adapter, AdapterAccount, AdapterUser } from "next-auth/adapters";
import { normaliseEmail } from "@/lib/auth/email";
import type { SessionIdentity } from "@/lib/auth/session-tokens";
import { config } from "@/lib/config";
import { db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { findRole } from "./membership";
import type { Principal } from "./types";
import { ensureUser } from "./users";

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
  const { userId } = await ensureUser(identity);
  return { id: userId, email: identity.subject, emailVerified: new Date() };
}

/**
 * next-auth's store, on this service's own tables: users are the API's users (created with their
 * personal workspace by ensureUser), pending e-mail links are sign_in_tokens (next-auth hands us
 * the token already hashed with the secret), OAuth accounts are sign_in_accounts. Sessions are
 * next-auth's signed JWT cookie, so no session table exists.
 */
export function signInAdapter(): Adapter {
  return {
    createUser: (user: Omit<AdapterUser, "id">) => signInAs(user.email),
    getUser: async (id) => toAdapterUser(await db().user.findUnique({ where: { id }, select: USER_COLUMNS })),
    getUserByEmail: async (email) => {
      const normalised = normaliseEmail(email);
      if (normalised === null) return null;
      const where = { issuer_subject: { issuer: config().AUTH_ISSUER, subject: normalised } };
      return toAdapterUser(await db().user.findUnique({ where, select: USER_COLUMNS }));
    },
    getUserByAccount: async ({ provider, providerAccountId }) => {
      const account = await db().signInAccount.findUnique({
        where: { provider_providerAccountId: { provider, providerAccountId } },
        select: { user: { select: USER_COLUMNS } },
      });
      return toAdapterUser(account?.user ?? null);
    },
    // Nothing next-auth might update (name, image, emailVerified) is stored: our users are verified by construction.
    updateUser: async (user) => {
      const row = toAdapterUser(await db().user.findUnique({ where: { id: user.id }, select: USER_COLUMNS }));
      if (!row) throw new Error("The user to update does not exist.");
      return row;
    },
    linkAccount: async (account: AdapterAccount) => {
      // The unique (provider, provider_account_id) index refuses a second link of one provider account.
      await db().signInAccount.create({
        data: {
          id: newId("acc"),
          provider: account.provider,
          providerAccountId: account.providerAccountId,
          userId: account.userId,
        },
      });
    },
    createVerificationToken: async (token) => {
      await db().signInToken.create({ data: { identifier: token.identifier, tokenHash: token.token, expiresAt: token.expires } });
      await db().signInToken.deleteMany({ where: { expiresAt: { lt: new Date() } } });
      return token;
    },
    // One statement deletes and returns the row, so a link works once even when clicked twice at once.
    useVerificationToken: async ({ identifier, token }) => {
      const rows = await db().$queryRaw<{ identifier: string; token_hash: string; expires_at: Date }[]>`
        DELETE FROM sign_in_tokens WHERE identifier = ${identifier} AND token_hash = ${token}
        RETURNING identifier, token_hash, expires_at`;
      const row = rows[0];
      return row ? { identifier: row.identifier, token: row.token_hash, expires: row.expires_at } : null;
    },
  };
}

const USER_COLUMNS = { id: true, email: true, issuer: true } as const;

function toAdapterUser(row: { id: string; email: string | null; issuer: string } | null): AdapterUser | null {
  if (!row?.email || row.issuer !== config().AUTH_ISSUER) return null;
  return { id: row.id, email: row.email, emailVerified: new Date() };
}

export type DashboardUser = { userId: string; email: string; personalWorkspaceId: string };

/** The signed-in person behind a dashboard session's user id; null when the row is gone. */
export async function findDashboardUser(userId: string): Promise<DashboardUser | null> {
  const user = await db().user.findUnique({
    where: { id: userId },
    select: { id: true, email: true, personalWorkspace: { select: { id: true } } },
  });
  if (!user?.email || !user.personalWorkspace) return null;
  return { userId: user.id, email: user.email, personalWorkspaceId: user.personalWorkspace.id };
}

/**
 * The principal a dashboard request acts as: the chosen workspace when the user is a member of it,
 * else their personal workspace, exactly as a session token with X-Workspace-Id resolves.
 */
export async function dashboardPrincipal(user: DashboardUser, chosenWorkspaceId: string | undefined): Promise<Principal> {
  if (chosenWorkspaceId && chosenWorkspaceId !== user.personalWorkspaceId) {
    const role = await findRole(chosenWorkspaceId, user.userId);
    if (role) return { kind: "session", userId: user.userId, workspaceId: chosenWorkspaceId, role };
  }
  return { kind: "session", userId: user.userId, workspaceId: user.personalWorkspaceId, role: "owner" };
}
