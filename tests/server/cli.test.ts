import type { ScanRow } from "@/lib/analytics/enrich";
import { writeScanBatch } from "@/lib/analytics/store/append";
import { DAY } from "@/lib/analytics/store/rollups";
import { config } from "@/lib/config";
import { db } from "@/lib/db/client";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { describe, expect, it } from "vitest";
import { call, newUser } from "../support/api";
import { runCommand } from "../support/command";

const CLI_TIMEOUT_MS = 60_000;

function runNpmScript(script: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return runCommand("npm", ["run", "--silent", script, "--", ...args], env);
}

/** The test process's environment with the given AUTH_SECRET for the built-in identity provider. */
function envWithAuthSecret(authSecret: string): NodeJS.ProcessEnv {
  return { ...process.env, AUTH_SECRET: authSecret };
}

describe("npm run session-token", () => {
  it(
    "prints one line: a session token for the lower-cased email that the API accepts",
    async () => {
      const result = await runNpmScript(
        "session-token",
        ["--email", "Someone@Example.com"],
        envWithAuthSecret(process.env.AUTH_SECRET!),
      );

      expect(result.exitCode).toBe(0);
      expect(result.stdout).toMatch(/^[^\n]+\n$/);
      const token = result.stdout.trim();
      expect(decodeProtectedHeader(token)).toMatchObject({ alg: "HS256" });
      const claims = decodeJwt(token);
      expect(claims).toMatchObject({
        sub: "someone@example.com",
        email: "someone@example.com",
        iss: config().AUTH_ISSUER,
        aud: config().AUTH_AUDIENCE,
      });
      expect(claims.exp! - claims.iat!).toBe(24 * 60 * 60);

      const workspaces = await call("GET", "/api/workspaces", { token });
      expect(workspaces.status).toBe(200);
      expect(workspaces.body.workspace.id).toEqual(expect.any(String));
    },
    CLI_TIMEOUT_MS,
  );

  it(
    "mints a token the API refuses when signed with another AUTH_SECRET",
    async () => {
      const result = await runNpmScript(
        "session-token",
        ["--email", "someone@example.com"],
        envWithAuthSecret("a-different-secret-that-is-long-enough"),
      );

      expect(result.exitCode).toBe(0);
      expect((await call("GET", "/api/workspaces", { token: result.stdout.trim() })).status).toBe(401);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    "exits 2 with one line when the lifetime exceeds AUTH_TOKEN_MAX_LIFETIME_SECONDS",
    async () => {
      const result = await runNpmScript(
        "session-token",
        ["--email", "someone@example.com", "--ttl-seconds", String(31 * 24 * 60 * 60)],
        envWithAuthSecret(process.env.AUTH_SECRET!),
      );

      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(
        /^A session token lives between 1 and 2592000 seconds \(AUTH_TOKEN_MAX_LIFETIME_SECONDS\)\.\n$/,
      );
    },
    CLI_TIMEOUT_MS,
  );

  it(
    "exits 2 with a usage line when --email is missing",
    async () => {
      const result = await runNpmScript("session-token", []);

      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^Usage: npm run --silent session-token -- --email [^\n]+\n$/);
    },
    CLI_TIMEOUT_MS,
  );
});

describe("npm run close-scan-days", () => {
  it(
    "closes today: its waiting scans go to their day and month rows, and so do the scans written after it",
    async () => {
      const user = await newUser("close-today");
      const link = await call("POST", "/api/links", { token: user.token, body: { destination: "https://example.com/today" } });
      const scan = (visitor: string): ScanRow => ({
        linkId: link.body.id,
        host: "s.test.example",
        occurredAt: new Date(),
        userAgent: "Mozilla/5.0",
        referrerHost: null,
        country: "NZ",
        viaQr: true,
        device: "mobile",
        browser: null,
        os: null,
        bot: false,
        visitor,
      });
      await writeScanBatch("close-today-before", [scan("a".repeat(32))]);
      const dayScans = async () => {
        const [row] = await db().$queryRaw<{ scans: bigint | null }[]>`
          SELECT sum(scans) AS scans FROM scan_rollups WHERE link_id = ${link.body.id} AND grain = ${DAY} AND dimension = 0`;
        return Number(row?.scans ?? 0);
      };
      expect(await dayScans()).toBe(0);

      const result = await runNpmScript("close-scan-days", []);
      const today = new Date().toISOString().slice(0, 10);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Closed \\d+ day\\(s\\), \\d{4}-\\d{2}-\\d{2} to ${today}; `));
      expect(await dayScans()).toBe(1);
      await writeScanBatch("close-today-after", [scan("b".repeat(32))]);
      expect(await dayScans()).toBe(2);
    },
    CLI_TIMEOUT_MS,
  );
});
