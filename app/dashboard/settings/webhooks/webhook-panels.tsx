"use client";

import { useActionState, useState, useTransition } from "react";
import { buttonClass, cardClass, errorClass, inputClass, labelClass, mutedClass, noticeClass } from "@/components/ui/styles";
import type { ActionResult } from "@/lib/api/dashboard";
import type { DeliveryAttemptView, WebhookView } from "@/lib/webhooks/schemas";
import {
  addWebhookAction,
  type AddWebhookState,
  retryDeliveryAction,
  setWebhookDisabledAction,
  testWebhookAction,
} from "./actions";

const timeFormat = new Intl.DateTimeFormat("en-AU", { dateStyle: "medium", timeStyle: "medium", timeZone: "UTC" });

export function AddWebhookForm({ events }: { events: string[] }) {
  const [added, add, adding] = useActionState<AddWebhookState, FormData>(addWebhookAction, null);
  return (
    <>
      <form action={add} className="space-y-3" key={added?.ok ? added.value.secret : "add"}>
        <div>
          <label htmlFor="webhook-url" className={labelClass}>
            Address that receives the events
          </label>
          <input
            id="webhook-url"
            name="url"
            type="url"
            required
            placeholder="https://example.com/hooks/permalink"
            defaultValue={added && !added.ok ? added.typed : ""}
            className={inputClass}
          />
        </div>
        <div>
          <label htmlFor="webhook-description" className={labelClass}>
            Note (optional)
          </label>
          <input id="webhook-description" name="description" className={inputClass} />
        </div>
        <fieldset className="grid gap-1 sm:grid-cols-2">
          <legend className={labelClass}>Events</legend>
          {events.map((event) => (
            <label key={event} className="flex items-center gap-2 text-sm">
              <input type="checkbox" name="events" value={event} />
              {event}
            </label>
          ))}
        </fieldset>
        <button type="submit" className={buttonClass.primary} disabled={adding}>
          Add endpoint
        </button>
      </form>
      {added && !added.ok && (
        <p role="alert" className={errorClass + " mt-3"}>
          {added.error}
        </p>
      )}
      {added?.ok && (
        <div role="status" className={noticeClass + " mt-3 space-y-1"}>
          <p className="m-0">Added {added.value.url}. Copy its signing secret now: it is shown only this once.</p>
          <p className="m-0 break-all font-mono" data-testid="webhook-secret">
            {added.value.secret}
          </p>
        </div>
      )}
    </>
  );
}

export function WebhookCard({ webhook, attempts }: { webhook: WebhookView; attempts: DeliveryAttemptView[] }) {
  const [outcome, setOutcome] = useState<ActionResult<string> | null>(null);
  const [busy, start] = useTransition();
  const run = (action: () => Promise<ActionResult<string>>) => start(async () => setOutcome(await action()));
  const headingId = `webhook-${webhook.id}`;
  // The log is newest first: a message may be retried from its latest attempt, when that one failed.
  const latest = new Set(attempts.filter((a, index) => attempts.findIndex((b) => b.message_id === a.message_id) === index));
  return (
    <section aria-labelledby={headingId} className={cardClass}>
      <h2 id={headingId} className="mt-0 break-all text-lg">
        {webhook.url}
      </h2>
      <p className={mutedClass + " m-0"}>
        {webhook.disabled ? "Disabled: nothing is sent. " : ""}
        {webhook.description ? `${webhook.description}. ` : ""}Events: {webhook.events.join(", ")}
      </p>
      <div className="mt-3 flex flex-wrap gap-2">
        <button
          type="button"
          className={buttonClass.secondary}
          disabled={busy}
          onClick={() => run(() => testWebhookAction(webhook.id))}
        >
          Send a test
        </button>
        <button
          type="button"
          className={webhook.disabled ? buttonClass.secondary : buttonClass.danger}
          disabled={busy}
          onClick={() => run(() => setWebhookDisabledAction(webhook.id, !webhook.disabled))}
        >
          {webhook.disabled ? "Enable" : "Disable"}
        </button>
      </div>
      {outcome && (
        <p role={outcome.ok ? "status" : "alert"} className={(outcome.ok ? noticeClass : errorClass) + " mt-3"}>
          {outcome.ok ? outcome.value : outcome.error}
        </p>
      )}
      <h3 className="mb-2 mt-4 text-base">Recent deliveries</h3>
      {attempts.length === 0 ? (
        <p className={mutedClass}>Nothing sent yet.</p>
      ) : (
        <ul className="m-0 list-none space-y-2 p-0">
          {attempts.map((attempt) => (
            <li
              key={`${attempt.message_id}-${attempt.attempt}-${attempt.attempted_at}`}
              className="rounded-md border border-zinc-200 p-2 text-sm dark:border-zinc-700"
            >
              <p className="m-0 break-all">
                <strong>{attempt.event}</strong>, try {attempt.attempt}, {timeFormat.format(attempt.attempted_at)} UTC:{" "}
                {attempt.delivered
                  ? `delivered (${attempt.status_code}, ${attempt.duration_ms} ms)`
                  : `not delivered (${attempt.error ?? `answered ${attempt.status_code}`})`}
                {attempt.next_retry_at !== null && `; next try ${timeFormat.format(attempt.next_retry_at)} UTC`}
              </p>
              {latest.has(attempt) && !attempt.delivered && !webhook.disabled && (
                <button
                  type="button"
                  className={buttonClass.small + " mt-1"}
                  disabled={busy}
                  onClick={() => run(() => retryDeliveryAction(webhook.id, attempt.message_id))}
                >
                  Retry now
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
