"use client";

import { Button } from "@/components/ui/button";
import { Confirm } from "@/components/ui/confirm";
import { CustomerSentence } from "@/components/ui/customer-sentence";
import { TextField } from "@/components/ui/field";
import { Checkbox } from "@/components/ui/input";
import { ActionOutcome, ErrorSentence } from "@/components/ui/outcome";
import { cardClass, errorClass, labelClass, mutedClass, noticeClass } from "@/components/ui/styles";
import { inCustomerWords } from "@/lib/api/customer-words";
import type { ActionResult } from "@/lib/api/dashboard";
import type { EventType } from "@/lib/webhooks/events";
import type { DeliveryAttemptView, WebhookView } from "@/lib/webhooks/schemas";
import { useActionState, useState, useTransition } from "react";
import {
  addWebhookAction,
  type AddWebhookState,
  deleteWebhookAction,
  editWebhookAction,
  type EditWebhookState,
  retryDeliveryAction,
  rotateWebhookSecretAction,
  setWebhookDisabledAction,
  testWebhookAction,
} from "./actions";
import { EVENT_MEANINGS } from "./event-meanings";

const timeFormat = new Intl.DateTimeFormat("en-AU", { dateStyle: "medium", timeStyle: "medium", timeZone: "UTC" });

export function AddWebhookForm({ events }: { events: EventType[] }) {
  const [added, add, adding] = useActionState<AddWebhookState, FormData>(addWebhookAction, null);
  return (
    <>
      <form action={add} className="space-y-3" key={added?.ok ? added.value.secret : "add"}>
        <WebhookFields prefix="webhook" url={(added && !added.ok && added.typed) || ""} description="" />
        <EventChoices events={events} chosen={[]} />
        <Button type="submit" variant="primary" disabled={adding}>
          Add endpoint
        </Button>
      </form>
      {added && !added.ok && (
        <p role="alert" className={errorClass + " mt-3"}>
          <CustomerSentence text={added.error} />
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

/** The endpoint's address and note, as the form starts them: empty or what was typed (adding), or the endpoint's (editing). */
function WebhookFields({ prefix, url, description }: { prefix: string; url: string; description: string }) {
  return (
    <>
      <TextField
        id={`${prefix}-url`}
        label="Address that receives the events"
        name="url"
        type="url"
        required
        placeholder="https://example.com/hooks/permalink"
        defaultValue={url}
      />
      <TextField id={`${prefix}-description`} label="Note" optional name="description" defaultValue={description} />
    </>
  );
}

/** The events to choose, each with its code name (what the receiver matches on) and what it means. */
function EventChoices({ events, chosen }: { events: EventType[]; chosen: string[] }) {
  return (
    <fieldset className="grid gap-2 sm:grid-cols-2">
      <legend className={labelClass}>Events</legend>
      {events.map((event) => (
        <Checkbox
          key={event}
          className="flex items-start gap-2 text-sm"
          inputClassName="mt-1"
          name="events"
          value={event}
          defaultChecked={chosen.includes(event)}
          label={
            <span>
              <code>{event}</code>
              <span className={mutedClass}>: {EVENT_MEANINGS[event]}</span>
            </span>
          }
        />
      ))}
    </fieldset>
  );
}

/** The endpoint's address, note and events, changed together. */
function EditWebhookForm({ webhook, events }: { webhook: WebhookView; events: EventType[] }) {
  const [state, edit, saving] = useActionState<EditWebhookState, FormData>(editWebhookAction, null);
  return (
    <form action={edit} className="mt-3 space-y-3" key={state?.attempt ?? 0}>
      <input type="hidden" name="id" value={webhook.id} />
      <WebhookFields prefix={`edit-${webhook.id}`} url={webhook.url} description={webhook.description ?? ""} />
      <EventChoices events={events} chosen={webhook.events} />
      <Button type="submit" variant="primary" disabled={saving}>
        Save changes
      </Button>
      <ActionOutcome state={state} />
    </form>
  );
}

export function WebhookCard({
  webhook,
  attempts,
  events,
}: {
  webhook: WebhookView;
  attempts: DeliveryAttemptView[];
  events: EventType[];
}) {
  const [editing, setEditing] = useState(false);
  const [rotated, rotate, rotating] = useActionState(rotateWebhookSecretAction, null);
  const [deleted, remove, deleting] = useActionState(deleteWebhookAction, null);
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
        <Button disabled={busy} onClick={() => run(() => testWebhookAction(webhook.id))}>
          Send a test
        </Button>
        <Button
          variant={webhook.disabled ? "secondary" : "danger"}
          disabled={busy}
          onClick={() => run(() => setWebhookDisabledAction(webhook.id, !webhook.disabled))}
        >
          {webhook.disabled ? "Enable" : "Disable"}
        </Button>
        <Button aria-expanded={editing} onClick={() => setEditing(!editing)}>
          {editing ? "Close the editor" : "Edit"}
        </Button>
        {[
          {
            label: "Rotate the secret",
            question:
              "Rotate the signing secret? The old one stops signing at once: your receiver refuses messages until it has the new one.",
            confirm: "Yes, rotate the secret",
            action: rotate,
            pending: rotating,
          },
          {
            label: "Delete",
            question: "Delete this endpoint? Nothing more is sent to it, and its delivery log goes with it.",
            confirm: "Yes, delete the endpoint",
            action: remove,
            pending: deleting,
          },
        ].map((asked) => (
          <Confirm key={asked.label} {...asked} what={webhook.url} fields={{ id: webhook.id }} />
        ))}
      </div>
      {editing && <EditWebhookForm webhook={webhook} events={events} />}
      {rotated?.ok && (
        <div role="status" className={noticeClass + " mt-3 space-y-1"}>
          <p className="m-0">The secret was rotated. Copy the new one now: it is shown only this once.</p>
          <p className="m-0 break-all font-mono" data-testid="webhook-secret">
            {rotated.value}
          </p>
        </div>
      )}
      <ErrorSentence error={rotated && !rotated.ok ? rotated.error : deleted && !deleted.ok ? deleted.error : undefined} />
      {outcome && (
        <p role={outcome.ok ? "status" : "alert"} className={(outcome.ok ? noticeClass : errorClass) + " mt-3"}>
          <CustomerSentence text={outcome.ok ? outcome.value : outcome.error} />
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
                  : `not delivered (${attempt.error ? inCustomerWords(attempt.error) : `answered ${attempt.status_code}`})`}
                {attempt.next_retry_at !== null && `; next try ${timeFormat.format(attempt.next_retry_at)} UTC`}
              </p>
              {latest.has(attempt) && !attempt.delivered && !webhook.disabled && (
                <Button
                  variant="small"
                  className="mt-1"
                  disabled={busy}
                  onClick={() => run(() => retryDeliveryAction(webhook.id, attempt.message_id))}
                >
                  Retry now
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
