import { schemaState } from "@/lib/db/migrate-at-start";
import { replicaState } from "@/lib/db/replica";
import { withDeadline } from "@/lib/deadline";
import { natsState } from "@/lib/nats/connection";
import { processSingleton } from "@/lib/process-singleton";
import { pingSharedStore, sharedStoreKind } from "@/lib/shared-store/clients";
import { describeWithoutSecrets, sharedStoreAnswered, sharedStoreFailed, sharedStoreFailure } from "@/lib/shared-store/status";
import type { Component, Health, HealthStatus } from "./schemas";
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

export type HealthAnswer<Body> = { status: 200; body: Body } | { status: 503; body: Body & { error: string } };

/**
 * The health answer both doors give (the route and the front door): 200 while this instance can
 * serve, else 503 with a sentence. The operator (`detailed`) is told each component and why one is
 * unavailable; anyone else the status alone, since a reason names what failed and how (a
 * connection refused, a password rejected) to whoever asks.
 */
export async function healthAnswer(detailed: true): Promise<HealthAnswer<Health>>;
export async function healthAnswer(detailed: boolean): Promise<HealthAnswer<HealthStatus> | HealthAnswer<Health>>;
export async function healthAnswer(detailed: boolean): Promise<HealthAnswer<HealthStatus> | HealthAnswer<Health>> {
  const health = await recentHealth();
  const body: HealthStatus | Health = detailed ? health : { status: health.status };
  if (health.status !== "unavailable") return { status: 200, body };
  return { status: 503, body: { error: UNAVAILABLE_SENTENCE, ...body } };
}

/**
 * One check serves every probe until a second after it answered: a load balancer's, an
 * operator's, or thousands of strangers' (the path is public and unmetered), so probes cost the
 * database and the shared store at most one ping each a second, and one check is in flight at a
 * time (a check that waits on a hung database is shared by every probe meanwhile, never repeated).
 */
const REUSE_MS = 1000;

type RecentCheck = { health: Promise<Health>; answeredAt: number | null };
const recentCheck = processSingleton<{ last: RecentCheck | null }>("health.recent-check", () => ({ last: null }));

function recentHealth(): Promise<Health> {
  const holder = recentCheck.get();
  const last = holder.last;
  // Monotonic: a clock stepped back must not keep one answer for longer.
  if (last && (last.answeredAt === null || performance.now() - last.answeredAt < REUSE_MS)) return last.health;
  const check: RecentCheck = { health: checkHealth(), answeredAt: null };
  const answered = () => {
    check.answeredAt = performance.now();
  };
  check.health.then(answered, answered);
  holder.last = check;
  return check.health;
}

/** Forgets the last check, so the next probe checks afresh (for tests that change what a check sees). */
export function forgetHealthCheck(): void {
  recentCheck.reset();
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
