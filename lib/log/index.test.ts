import { processSingleton } from "@/lib/process-singleton";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, levelFrom, withRequestContext } from "./index";

/** A logger writing into an array of parsed lines. */
function capture(level: Parameters<typeof createLogger>[1] = "info") {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      raw.push(String(chunk));
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: createLogger(destination, level), lines, raw };
}

describe("the structured logger", () => {
  it("writes one JSON line per event with the level's name, time and message", () => {
    const { logger, lines } = capture();

    logger.info({ status: 201 }, "request");

    expect(lines).toEqual([
      expect.objectContaining({ level: "info", msg: "request", status: 201, time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }),
    ]);
  });

  it("adds the request's id, route and method to every line logged while it is served", async () => {
    const { logger, lines } = capture();

    await withRequestContext({ reqId: "req-1", route: "/api/links/{id}", method: "PATCH" }, async () => {
      await Promise.resolve();
      logger.warn("inside");
    });
    logger.warn("outside");

    expect(lines[0]).toMatchObject({ reqId: "req-1", route: "/api/links/{id}", method: "PATCH", msg: "inside" });
    expect(lines[1]).not.toHaveProperty("reqId");
  });

  it("logs a process-wide value's background work without the request that happened to create it", async () => {
    const { logger, lines } = capture();
    const monitor = processSingleton(`test.monitor.${Math.random()}`, () => {
      const timer = setInterval(() => logger.warn("background"), 5);
      return { stop: () => clearInterval(timer) };
    });

    await withRequestContext({ reqId: "req-2", route: "/api/health", method: "GET" }, async () => {
      monitor.get();
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    monitor.get().stop();

    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toHaveProperty("reqId");
  });

  it("censors credential headers and secret fields with pino's redaction, at the top and one level down", () => {
    const { logger, raw } = capture();
    const secrets = [
      "Bearer plk_secretkey",
      "Payment eyJzZWNyZXQ",
      "x402-signature",
      "t=1,v1=stripe",
      "sk_test_secret",
      "whsec_secret",
      "eyJhbGciOi.jwt.token",
    ];

    logger.info({
      req: {
        headers: {
          authorization: secrets[0],
          "payment-signature": secrets[2],
          "stripe-signature": secrets[3],
          accept: "application/json",
        },
      },
      headers: { authorization: secrets[1] },
      api_key: "plk_top_level_key",
      account: { api_key: "plk_nested_key", token: secrets[6] },
      config: { STRIPE_SECRET_KEY: secrets[4], STRIPE_WEBHOOK_SECRET: secrets[5] },
    });

    const line = raw.join("");
    for (const secret of [...secrets, "plk_top_level_key", "plk_nested_key"]) expect(line).not.toContain(secret);
    expect(line).toContain("application/json");
    expect(line).toContain("[redacted]");
  });

  it("censors NATS's credentials, in its settings and in the client's options", () => {
    const { logger, raw } = capture();

    logger.info({
      config: { NATS_URL: "nats://scans:hunter1@n1:4222", NATS_PASSWORD: "hunter2", NATS_TOKEN: "hunter3" },
      NATS_NKEY_SEED: "SUhunter4",
      options: { servers: ["n1:4222"], user: "scans", pass: "hunter5" },
    });

    expect(raw.join("")).not.toMatch(/hunter/);
    expect(raw.join("")).toContain("n1:4222");
  });

  it("takes its level from LOG_LEVEL, and info for anything that is not a level", () => {
    expect(levelFrom("debug")).toBe("debug");
    expect(levelFrom("silent")).toBe("silent");
    expect(levelFrom(undefined)).toBe("info");
    expect(levelFrom("loud")).toBe("info");

    const { logger, lines } = capture("warn");
    logger.info("not written");
    logger.warn("written");
    expect(lines.map((line) => line.msg)).toEqual(["written"]);
  });
});
