import { startApp, type RunningApp } from "@/server/app-process";
import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testAppEnv } from "../support/app-env";
import { answerOn } from "../support/http";

/**
 * Where `npm start` listens. Behind a proxy on the same machine (HAProxy under `npm run cluster`,
 * a self-hoster's nginx) the server counts that proxy in TRUSTED_PROXY_HOPS, so a client reaching
 * its port directly could name its own address in X-Forwarded-For: HOST=127.0.0.1 leaves it
 * reachable from this machine only. Linux routes all of 127.0.0.0/8 to the loopback interface, so
 * 127.0.0.2 stands for any address other than the one the server was told to listen on.
 */

let loopbackOnly: RunningApp;
let everywhere: RunningApp;

beforeAll(async () => {
  [loopbackOnly, everywhere] = await Promise.all([
    startApp("front", { ...testAppEnv(), HOST: "127.0.0.1", TRUSTED_PROXY_HOPS: "1" }),
    // tcsh exports HOST as the machine's name: the shell's variable, taken for unset.
    startApp("front", { ...testAppEnv(), HOST: hostname() }),
  ]);
}, 300_000);

afterAll(async () => {
  expect(await loopbackOnly?.stop(), "the server exits cleanly on SIGTERM").toBe(0);
  expect(await everywhere?.stop(), "the server exits cleanly on SIGTERM").toBe(0);
}, 30_000);

/** The JSON log lines of a server that exited with 1 before answering (startApp names the exit and the output). */
async function logOfFailedStart(env: Record<string, string | undefined>): Promise<Record<string, unknown>[]> {
  const failure: Error = await startApp("front", env).then(
    () => {
      throw new Error("the server started");
    },
    (error: Error) => error,
  );
  const [first, ...output] = failure.message.split("\n");
  expect(first).toBe("The app exited with 1:");
  return output.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("the address the self-hosted server listens on", () => {
  it("is 127.0.0.1 alone with HOST=127.0.0.1: a connection to 127.0.0.2 on its port is refused", async () => {
    expect(await answerOn("127.0.0.1", loopbackOnly.port)).toBe(200);
    expect(await answerOn("127.0.0.2", loopbackOnly.port)).toBe("ECONNREFUSED");
    expect(loopbackOnly.output()).toMatch(/"host":"127\.0\.0\.1","port":\d+,"msg":"serving"/);
  });

  it("is every interface when HOST is this machine's name, as tcsh sets it: 127.0.0.2 is served too", async () => {
    expect(await answerOn("127.0.0.1", everywhere.port)).toBe(200);
    expect(await answerOn("127.0.0.2", everywhere.port)).toBe(200);
    expect(everywhere.output()).toMatch(/"host":"every interface","port":\d+,"msg":"serving"/);
    expect(everywhere.output()).toContain(
      `"msg":"HOST is this machine's name (${hostname()}), as tcsh sets it, not an address: ignored`,
    );
  });

  it("refuses a HOST that is not an IP address with one log line naming it, before starting anything", async () => {
    const lines = await logOfFailedStart({ ...testAppEnv(), HOST: "example.com" });
    expect(lines).toEqual([
      expect.objectContaining({
        level: "fatal",
        msg: 'Configuration error: HOST must be an IP address to listen on (such as 127.0.0.1 or ::1) or localhost (got "example.com").',
      }),
    ]);
  });

  it("stops with a sentence, its application process with it, when HOST is not an address of this machine", async () => {
    // 192.0.2.1 is TEST-NET-1: documentation only, never a local address.
    const lines = await logOfFailedStart({ ...testAppEnv(), HOST: "192.0.2.1" });
    const fatal = lines.filter((line) => line.level === "fatal");
    expect(fatal).toHaveLength(1);
    expect(fatal[0]!.msg).toMatch(/^the server cannot listen on 192\.0\.2\.1:\d+: HOST is not an address of this machine$/);
    const applicationPid = Number(lines.find((line) => line.applicationPid)?.applicationPid);
    expect(applicationPid, "the application process had started").toBeGreaterThan(0);
    expect(() => process.kill(applicationPid, 0), "the application process is gone").toThrow(/ESRCH/);
  }, 60_000);
});
