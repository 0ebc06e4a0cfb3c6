import { decodeJwt, decodeProtectedHeader } from "jose";
import { describe, expect, it } from "vitest";
import { config } from "@/lib/config";
import { call } from "../support/api";
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
