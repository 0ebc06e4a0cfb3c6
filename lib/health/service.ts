import { sharedStoreFailure, sharedStoreAnswered, sharedStoreFailed, describeWithoutSecrets } from "@/lib/shared-store/status";
import { pingSharedStore, sharedStoreKind } from "@/lib/shared-store/clients";
import { natsState } from "@/lib/nats/connection";
import type { Component, Health } from "./schemas";
import { pingDatabase } from "./store";

/** Each component gets this long to answer (a first query may open a connection); a load balancer's probe typically waits 5 s. */
const COMPONENT_DEADLINE_MS = 2_000;

const NOT_CONFIGURED: Component = { status: "not configured" };

/** What this instance's components answer now; `unavailable` when it cannot serve. */
export async function checkHealth(): Promise<Health> {
  const [database, redis] = await Promise.all([checkDatabase(), checkSharedStore()]);
  const nats = natsState() ?? NOT_CONFIGURED;
  const status =
    database.status !== "ok"
      ? "unavailable"
      : redis.status === "unavailable" || nats.status === "unavailable"
        ? "degraded"
        : "ok";
  return { status, database, replica: NOT_CONFIGURED, redis, nats };
}

async function checkDatabase(): Promise<Component> {
  try {
    await withDeadline(pingDatabase(), COMPONENT_DEADLINE_MS);
    return { status: "ok" };
  } catch (error) {
    return { status: "unavailable", reason: describeWithoutSecrets(error) };
  }
}

/** A ping of the shared store; a failure starts (or continues) the store's failure spell, which the log shows once. */
async function checkSharedStore(): Promise<Health["redis"]> {
  const store = sharedStoreKind();
  if (store === undefined) return NOT_CONFIGURED;
  try {
    await pingSharedStore(COMPONENT_DEADLINE_MS);
    sharedStoreAnswered(store);
    return { status: "ok", store };
  } catch (error) {
    sharedStoreFailed(store, error);
    return { status: "unavailable", store, reason: sharedStoreFailure(store)?.reason ?? describeWithoutSecrets(error) };
  }
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
