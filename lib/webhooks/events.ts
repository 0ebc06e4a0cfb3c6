/** Every event a webhook may subscribe to (ping is sent only by the test operation, to the one endpoint asked). */
export const EVENT_TYPES = [
  "link.created",
  "link.updated",
  "link.archived",
  "link.restored",
  "link.status_changed",
  "link.scanned",
  "domain.verified",
  "domain.failed",
  "domain.expiring",
  "member.joined",
  "member.removed",
  "import.finished",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** What a message carries, as the Standard Webhooks payload has it: the type, when it happened (ISO 8601) and the resource. */
export type EventPayload = { type: EventType | "ping"; timestamp: string; data: unknown };

export function eventBody(type: EventPayload["type"], occurredAt: number, data: unknown): string {
  const payload: EventPayload = { type, timestamp: new Date(occurredAt).toISOString(), data };
  return JSON.stringify(payload);
}
