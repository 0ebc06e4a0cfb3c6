import { setClock } from "@/lib/clock";
import { resetConfig } from "@/lib/config";
import { resetResolutionRuntime } from "@/lib/resolution/runtime";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { call, type TestUser } from "./api";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";

/** Where each test's clock starts: a fixed moment, so a test's times read the same on every run. */
export const WORLD_START = Date.UTC(2026, 10, 20, 12);

export type LinkEditWorld = {
  /** The clock's reading; a test moves it. */
  now: number;
  /** This test's receiver on 127.0.0.1. */
  readonly receiver: WebhookReceiver;
};

/**
 * What a suite that edits links and follows their visits and webhooks runs in: the environment
 * it names, and WEBHOOK_PRIVATE_NETWORKS=127.0.0.0/8 for a receiver on 127.0.0.1, set before its tests
 * and undone after them; and before each test, the clock at WORLD_START reading `world.now`, no
 * cached link, and a receiver of its own.
 */
export function linkEditWorld(environment: Record<string, string> = {}): LinkEditWorld {
  const settings = { ...environment, WEBHOOK_PRIVATE_NETWORKS: "127.0.0.0/8" };
  const world = { now: WORLD_START } as { now: number; receiver: WebhookReceiver };
  beforeAll(() => {
    Object.assign(process.env, settings);
    resetConfig();
  });
  afterAll(() => {
    for (const name of Object.keys(settings)) delete process.env[name];
    resetConfig();
  });
  beforeEach(async () => {
    world.now = WORLD_START;
    setClock({ now: () => world.now });
    resetResolutionRuntime();
    world.receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    setClock(undefined);
    await world.receiver.close();
  });
  return world;
}

/** A new link of `user`'s workspace (201 expected). */
export async function createLink(user: TestUser, destination: string): Promise<{ id: string; slug: string }> {
  const created = await call("POST", "/api/links", { token: user.token, body: { destination } });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

/** PATCH /api/links/{id} with `body`, as `user`. */
export function editLink(user: TestUser, id: string, body: Record<string, unknown>) {
  return call("PATCH", `/api/links/${id}`, { token: user.token, body });
}

/** Subscribes the world's receiver to `events` of `user`'s workspace, ready to verify what it receives. */
export async function listenTo(world: LinkEditWorld, user: TestUser, events: string[]): Promise<void> {
  const created = await call("POST", "/api/webhooks", { token: user.token, body: { url: world.receiver.url, events } });
  expect(created.status, created.text).toBe(201);
  world.receiver.secret = created.body.secret;
}
