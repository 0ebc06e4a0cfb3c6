import { createLogger } from "@/lib/log";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";

/** The lines a logger wrote, parsed. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger(destination, "info"), lines };
}

describe("log redaction", () => {
  it("censors OAuth's secrets and a link's password, at the top of a line and one level down", () => {
    const { logger, lines } = capture();
    const secrets = {
      access_token: "plo_access-secret-value",
      refresh_token: "plr_refresh-secret-value",
      code: "plc_code-secret-value",
      code_verifier: "verifier-secret-value-0123456789",
      client_secret: "client-secret-value",
    };
    logger.info(secrets, "top level");
    logger.info({ form: secrets, body: { ...secrets }, query: { code: secrets.code } }, "one level down");
    logger.info(
      { req: { headers: { "link-password": "hunter2-link" } }, headers: { "link-password": "hunter2-link" } },
      "headers",
    );
    const text = JSON.stringify(lines);
    for (const secret of [...Object.values(secrets), "hunter2-link"]) expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({ access_token: "[redacted]", code: "[redacted]", code_verifier: "[redacted]" });
    expect(lines[1]).toMatchObject({ form: { refresh_token: "[redacted]", code: "[redacted]" }, query: { code: "[redacted]" } });
    expect(lines[2]).toMatchObject({ req: { headers: { "link-password": "[redacted]" } } });
  });

  it("keeps an error's own code, which is no secret", () => {
    const { logger, lines } = capture();
    logger.error({ err: Object.assign(new Error("unique constraint"), { code: "P2002" }) }, "failed");
    expect(lines[0]).toMatchObject({ err: { code: "P2002" } });
  });
});
