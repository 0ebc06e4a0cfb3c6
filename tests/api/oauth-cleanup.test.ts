import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { db } from "@/lib/db/client";
import { secretHash } from "@/lib/oauth/tokens";
import { afterEach, describe, expect, it } from "vitest";
import { call, newUser } from "../support/api";
import { allow, connectApp, form, start, type Tokens } from "../support/oauth";

/**
 * The scheduled OAuth cleanup (lib/oauth/jobs.ts), through its cron route: expired authorization
 * requests and codes, expired access tokens, and used codes and rotated refresh tokens a day after
 * their use leave the database; the live tokens stay and keep working. Its own file, so its own
 * database: the counts are this file's rows alone.
 */

const CRON_SECRET = "cron-secret-for-the-oauth-cleanup";
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

afterEach(() => {
  setClock(undefined);
  delete process.env.CRON_SECRET;
  resetConfig();
});

function at(instant: number) {
  setClock({ now: () => instant });
}

async function cleanUp() {
  const run = await call("GET", "/api/cron/oauth-cleanup", { token: CRON_SECRET });
  expect(run.status, run.text).toBe(200);
  return run.body as { authorizations_deleted: number; access_tokens_deleted: number; refresh_tokens_deleted: number };
}

async function refresh(clientId: string, refreshToken: string): Promise<Tokens> {
  const answer = await call(
    "POST",
    "/api/oauth/token",
    form({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId }),
  );
  expect(answer.status, answer.text).toBe(200);
  return answer.body as Tokens;
}

const stored = async (secret: string) => (await db().oAuthToken.count({ where: { tokenHash: secretHash(secret) } })) === 1;

describe("the OAuth cleanup job", () => {
  it("deletes expired codes and tokens and rotated refresh tokens a day after their use; live tokens stay and work", async () => {
    process.env.CRON_SECRET = CRON_SECRET;
    resetConfig();
    const t0 = Date.UTC(2031, 4, 1, 9);
    at(t0);
    const owner = await newUser("oauth-cleanup");
    const { started, tokens: first } = await connectApp(owner, owner.workspaceId, ["links:read"]);
    const second = await refresh(started.clientId, first.refresh_token);
    // A request nobody answered, and a code nobody exchanged.
    await start();
    await allow(owner, await start(), ["links:read"], owner.workspaceId);
    expect(await db().oAuthAuthorization.count()).toBe(3);

    // Nothing has expired yet: a pass deletes nothing.
    expect(await cleanUp()).toEqual({ authorizations_deleted: 0, access_tokens_deleted: 0, refresh_tokens_deleted: 0 });

    // 16 minutes on: both access tokens have expired, so have the request and the unexchanged code.
    at(t0 + 16 * MINUTE_MS);
    const third = await refresh(started.clientId, second.refresh_token);
    expect(await cleanUp()).toEqual({ authorizations_deleted: 2, access_tokens_deleted: 2, refresh_tokens_deleted: 0 });
    expect(await stored(first.access_token)).toBe(false);
    expect(await stored(second.access_token)).toBe(false);
    // The used code and the rotated refresh tokens stay for a day: a copy replayed now would still revoke the connection.
    expect(await db().oAuthAuthorization.count()).toBe(1);
    expect(await stored(first.refresh_token)).toBe(true);
    expect(await stored(second.refresh_token)).toBe(true);
    expect((await call("GET", "/api/links", { token: third.access_token })).status).toBe(200);

    // A day and a little more on: the evidence has gone; the live pair is untouched and works.
    at(t0 + 25 * HOUR_MS);
    const fourth = await refresh(started.clientId, third.refresh_token);
    expect(await cleanUp()).toEqual({ authorizations_deleted: 1, access_tokens_deleted: 1, refresh_tokens_deleted: 2 });
    expect(await db().oAuthAuthorization.count()).toBe(0);
    expect(await stored(first.refresh_token)).toBe(false);
    expect(await stored(second.refresh_token)).toBe(false);
    expect(await stored(third.refresh_token)).toBe(true);
    expect(await db().oAuthToken.count()).toBe(3);
    expect((await call("GET", "/api/links", { token: fourth.access_token })).status).toBe(200);
    const fifth = await refresh(started.clientId, fourth.refresh_token);
    expect((await call("GET", "/api/links", { token: fifth.access_token })).status).toBe(200);

    // 32 days on: every token has expired, the unused refresh tokens too; the grant is still listed as connected.
    at(t0 + 32 * 24 * HOUR_MS);
    expect(await cleanUp()).toEqual({ authorizations_deleted: 0, access_tokens_deleted: 2, refresh_tokens_deleted: 3 });
    expect(await db().oAuthToken.count()).toBe(0);
    expect(await db().oAuthGrant.count({ where: { revokedAt: null } })).toBe(1);

    expect((await call("GET", "/api/cron/oauth-cleanup")).status).toBe(401);
  });
});
