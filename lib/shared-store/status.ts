import { log } from "@/lib/log";
import { processSingleton } from "@/lib/process-singleton";

/** Which shared store a deployment uses: Upstash over its REST API, or Redis over TCP (REDIS_URL). */
export type SharedStoreKind = "upstash" | "redis";

/** A run of failures with no success between them, from the first failure on. */
export type FailureSpell = { reason: string; since: number };

/** What every instance does while its shared store fails: it keeps serving, on its own. */
const WHILE_FAILING =
  "each instance limits writes in its own memory, and sees other instances' link changes only as its cached copies expire";

const processSpells = processSingleton("sharedStoreSpells", () => new Map<SharedStoreKind, FailureSpell>());

/**
 * A call to the shared store failed: the first failure of a spell is logged with its reason and what
 * the instance does meanwhile; the rest of the spell is not (every request may fail while it lasts).
 */
export function sharedStoreFailed(kind: SharedStoreKind, error: unknown): void {
  const spells = processSpells.get();
  if (spells.has(kind)) return;
  const reason = describeWithoutSecrets(error);
  spells.set(kind, { reason, since: Date.now() });
  log().warn({ store: kind, reason, meanwhile: WHILE_FAILING }, "the shared store is failing");
}

/** A call to the shared store succeeded: ends the current failure spell, if any, with one log line. */
export function sharedStoreAnswered(kind: SharedStoreKind): void {
  const spells = processSpells.peek();
  const spell = spells?.get(kind);
  if (!spell) return;
  spells!.delete(kind);
  log().warn({ store: kind, failedForMs: Date.now() - spell.since }, "the shared store answers again");
}

/** The current failure spell of that store in this process, if one is under way. */
export function sharedStoreFailure(kind: SharedStoreKind): FailureSpell | undefined {
  return processSpells.peek()?.get(kind);
}

/** Tests only: forget every failure spell, as a fresh process would. */
export function forgetSharedStoreFailures(): void {
  processSpells.peek()?.clear();
}

const MAX_REASON_LENGTH = 200;

/** An error whose message was written by us and carries no secret: logged as it is. */
export class SafeToLogError extends Error {}

/**
 * What went wrong, in words that carry no secret: a store's own error sentence (an Upstash error
 * names the command, never the token; the command's arguments are left out), else the error's name
 * and code (messages of connection errors can embed URLs with passwords).
 */
export function describeWithoutSecrets(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  if (error instanceof SafeToLogError) return `${error.name}: ${error.message}`;
  if (error.name === "UpstashError") return error.message.split(", command was:")[0]!.slice(0, MAX_REASON_LENGTH);
  const code = errorCode(error) ?? errorCode(error.cause);
  return code === undefined ? error.name : `${error.name} ${code}`;
}

function errorCode(error: unknown): string | undefined {
  const code: unknown = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}
