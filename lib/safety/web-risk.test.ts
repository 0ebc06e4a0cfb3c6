import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createWebRiskChecker } from "./web-risk";

const API_KEY = "test-key-4f1c9a";
const EXPIRE_TIME = "2030-01-01T00:00:00Z";
const BEFORE_EXPIRY = Date.parse(EXPIRE_TIME) - 60_000;

type RecordedRequest = { url: URL; headers: IncomingHttpHeaders };

let server: Server;
let baseUrl: string;
let requests: RecordedRequest[] = [];

/** Stub Web Risk: the answer depends on a word in the looked-up URI. */
function answer(uri: string, respond: (status: number, body: string) => void): void {
  if (uri.includes("hang")) return;
  if (uri.includes("unavailable")) return respond(503, '{"error":{"code":503}}');
  if (uri.includes("malformed")) return respond(200, "{not json");
  if (uri.includes("phish")) {
    return respond(200, JSON.stringify({ threat: { threatTypes: ["SOCIAL_ENGINEERING"], expireTime: EXPIRE_TIME } }));
  }
  if (uri.includes("everything")) {
    return respond(200, JSON.stringify({ threat: { threatTypes: ["UNWANTED_SOFTWARE", "MALWARE"], expireTime: EXPIRE_TIME } }));
  }
  if (uri.includes("slow")) {
    setTimeout(() => respond(200, "{}"), 150);
    return;
  }
  respond(200, "{}");
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    requests.push({ url, headers: request.headers });
    answer(url.searchParams.get("uri") ?? "", (status, body) => {
      response.writeHead(status, { "Content-Type": "application/json" }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  requests = [];
});

function createClock(start = BEFORE_EXPIRY) {
  let current = start;
  return { now: () => current, advance: (ms: number) => (current += ms) };
}

function requestsFor(uri: string): RecordedRequest[] {
  return requests.filter((request) => request.url.searchParams.get("uri") === uri);
}

describe("createWebRiskChecker against a stub on 127.0.0.1", () => {
  it("sends the key in a header, never in the URL, and asks for the three threat types", async () => {
    const checker = createWebRiskChecker({ apiKey: API_KEY, baseUrl });
    const uri = "https://phish.example.net/login?next=%2Fhome";
    await expect(checker.check(uri)).resolves.toEqual({
      status: "malicious",
      source: "webrisk",
      threat: "phishing",
      detail: "Google Web Risk lists the destination as SOCIAL_ENGINEERING.",
    });
    const [request] = requests;
    expect(request?.headers["x-goog-api-key"]).toBe(API_KEY);
    expect(request?.url.pathname).toBe("/v1/uris:search");
    expect(request?.url.searchParams.get("uri")).toBe(uri);
    expect(request?.url.searchParams.getAll("threatTypes")).toEqual(["MALWARE", "SOCIAL_ENGINEERING", "UNWANTED_SOFTWARE"]);
    expect(request?.url.href).not.toContain(API_KEY);
  });

  it("reports the most severe of several threat types", async () => {
    const checker = createWebRiskChecker({ apiKey: API_KEY, baseUrl });
    await expect(checker.check("https://everything.example.net/")).resolves.toMatchObject({
      status: "malicious",
      threat: "malware",
    });
  });

  it("calls an empty answer clean", async () => {
    const checker = createWebRiskChecker({ apiKey: API_KEY, baseUrl });
    await expect(checker.check("https://fine.example.net/")).resolves.toEqual({
      status: "clean",
      source: "webrisk",
    });
  });

  it.each([
    ["https://unavailable.example.net/", "a 503"],
    ["https://malformed.example.net/", "malformed JSON"],
  ])("answers unknown/error for %s (%s) and does not cache it", async (uri) => {
    const checker = createWebRiskChecker({ apiKey: API_KEY, baseUrl });
    await expect(checker.check(uri)).resolves.toEqual({ status: "unknown", source: "webrisk", reason: "error" });
    await checker.check(uri);
    expect(requestsFor(uri)).toHaveLength(2);
  });

  it("answers unknown/timeout when the provider hangs", async () => {
    const checker = createWebRiskChecker({ apiKey: API_KEY, baseUrl, timeoutMs: 200 });
    const started = performance.now();
    await expect(checker.check("https://hang.example.net/")).resolves.toEqual({
      status: "unknown",
      source: "webrisk",
      reason: "timeout",
    });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("reuses a clean answer for ten minutes", async () => {
    const clock = createClock();
    const checker = createWebRiskChecker({ apiKey: API_KEY, baseUrl, now: clock.now });
    const uri = "https://cached.example.net/";
    await checker.check(uri);
    clock.advance(10 * 60 * 1000 - 1);
    await expect(checker.check(uri)).resolves.toMatchObject({ status: "clean" });
    expect(requestsFor(uri)).toHaveLength(1);
    clock.advance(1);
    await checker.check(uri);
    expect(requestsFor(uri)).toHaveLength(2);
  });

  it("reuses a malicious answer until its expireTime", async () => {
    const clock = createClock();
    const checker = createWebRiskChecker({ apiKey: API_KEY, baseUrl, now: clock.now });
    const uri = "https://phish.example.net/cached";
    await checker.check(uri);
    clock.advance(59_999);
    await expect(checker.check(uri)).resolves.toMatchObject({ status: "malicious" });
    expect(requestsFor(uri)).toHaveLength(1);
    clock.advance(1);
    await checker.check(uri);
    expect(requestsFor(uri)).toHaveLength(2);
  });

  it("makes one request for concurrent checks of one URL", async () => {
    const checker = createWebRiskChecker({ apiKey: API_KEY, baseUrl });
    const uri = "https://slow.example.net/burst";
    const verdicts = await Promise.all(Array.from({ length: 5 }, () => checker.check(uri)));
    expect(verdicts.every((verdict) => verdict.status === "clean")).toBe(true);
    expect(requestsFor(uri)).toHaveLength(1);
  });

  it("lets one caller give up without cancelling the shared request", async () => {
    const checker = createWebRiskChecker({ apiKey: API_KEY, baseUrl });
    const uri = "https://slow.example.net/shared";
    const impatient = checker.check(uri, AbortSignal.timeout(20));
    const patient = checker.check(uri);
    await expect(impatient).resolves.toEqual({ status: "unknown", source: "webrisk", reason: "timeout" });
    await expect(patient).resolves.toEqual({ status: "clean", source: "webrisk" });
    expect(requestsFor(uri)).toHaveLength(1);
  });

  it("opens the circuit after consecutive failures and closes it after a good trial call", async () => {
    const clock = createClock();
    const checker = createWebRiskChecker({
      apiKey: API_KEY,
      baseUrl,
      now: clock.now,
      failureThreshold: 2,
      cooldownMs: 1000,
    });
    await checker.check("https://unavailable.example.net/1");
    await checker.check("https://unavailable.example.net/2");
    const requestsWhenOpened = requests.length;

    await expect(checker.check("https://fine.example.net/while-open")).resolves.toEqual({
      status: "unknown",
      source: "webrisk",
      reason: "circuit_open",
    });
    expect(requests).toHaveLength(requestsWhenOpened);

    clock.advance(1000);
    await expect(checker.check("https://unavailable.example.net/trial")).resolves.toMatchObject({ reason: "error" });
    await expect(checker.check("https://fine.example.net/reopened")).resolves.toMatchObject({
      reason: "circuit_open",
    });

    clock.advance(1000);
    await expect(checker.check("https://fine.example.net/trial")).resolves.toMatchObject({ status: "clean" });
    await expect(checker.check("https://fine.example.net/after")).resolves.toMatchObject({ status: "clean" });
    expect(requestsFor("https://fine.example.net/after")).toHaveLength(1);
  });

  it("lets only one trial call through while half-open", async () => {
    const clock = createClock();
    const checker = createWebRiskChecker({
      apiKey: API_KEY,
      baseUrl,
      now: clock.now,
      failureThreshold: 1,
      cooldownMs: 1000,
    });
    await checker.check("https://unavailable.example.net/");
    clock.advance(1000);
    const trial = checker.check("https://slow.example.net/trial");
    await expect(checker.check("https://fine.example.net/second")).resolves.toMatchObject({
      reason: "circuit_open",
    });
    await expect(trial).resolves.toMatchObject({ status: "clean" });
  });
});
