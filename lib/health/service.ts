import { sharedStoreFailure, sharedStoreAnswered, sharedStoreFailed, describeWithoutSecrets } from "@/lib/shared-store/status";
import { pingSharedStore, sharedStoreKind } from "@/lib/shared-store/clients";
import { schemaState } from "@/lib/db/migrate-at-start";
import { replicaState } from "@/lib/db/replica";
import { natsState } from "@/lib/nats/connection";
import { withDeadline } from "@/lib/deadline";
import type { Component, Health } from "./schemas";
import { pingDatabase } from "./store";

/** Each component gets this long to answer (a first query may open a connection); a load balancer's probe typically waits 5 s. */
const COMPONENT_DEADLINE_MS = 2_000;

const NOT_CONFIGURED: Component = { status: "not configured" };

/** What this instance's components answer now; `unavailable` when it cannot serve. */
export async function checkHealth(): Promise<Health> {
  const [database, redis] = await Promise.all([checkDatabase(), checkSharedStore()]);
  const nats = natsState() ?? NOT_CONFIGURED;
  const replica = checkReplica();
  const degraded = [redis, nats, replica].some((component) => component.status === "unavailable");
  const status = database.status !== "ok" ? "unavailable" : degraded ? "degraded" : "ok";
  return { status, database, replica, redis, nats };
}

const UNAVAILABLE_SENTENCE = "This instance cannot serve: its database does not answer.";

/** The health answer both doors give: 200 while this instance can serve, else 503 with a sentence. */
export async function healthAnswer(): Promise<{ status: 200; body: Health } | { status: 503; body: Health & { error: string } }> {
  const health = await checkHealth();
  if (health.status !== "unavailable") return { status: 200, body: health };
  return { status: 503, body: { error: UNAVAILABLE_SENTENCE, ...health } };
}

/** The monitor's last reading (every second): a replica too far behind is as good as absent for reads. */
function checkReplica(): Component {
  const state = replicaState();
  if (!state) return NOT_CONFIGURED;
  if (state.status === "ok") return { status: "ok" };
  if (state.status === "primary away") return { status: "ok", reason: "the primary does not answer; reads go to the replica" };
  if (state.status === "behind")
    return { status: "unavailable", reason: `${state.lagMs} ms behind the primary; reads go to the primary` };
  return { status: "unavailable", reason: `${state.reason}; reads go to the primary` };
}

async function checkDatabase(): Promise<Component> {
  const schema = schemaState();
  if (schema.status === "waiting")
    return {
      status: "unavailable",
      reason: `migrations not applied yet, since the database did not answer at start (${schema.reason})`,
    };
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
