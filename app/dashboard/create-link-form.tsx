"use client";

import { useActionState } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { buttonClass, errorClass, inputClass, labelClass, mutedClass, noticeClass } from "@/components/ui/styles";
import { createLinkAction, type CreateLinkState } from "./actions";

export function CreateLinkForm({ domains }: { domains: { id: string; hostname: string }[] }) {
  const [state, action, pending] = useActionState<CreateLinkState, FormData>(createLinkAction, null);
  return (
    <form action={action} className="grid gap-4 md:grid-cols-[2fr_1fr_1fr_auto] md:items-end" key={state?.attempt ?? 0}>
      <div>
        <label htmlFor="create-destination" className={labelClass}>
          Destination
        </label>
        <input
          id="create-destination"
          name="destination"
          type="url"
          required
          defaultValue={state?.input.destination}
          placeholder="https://example.com/spring-menu"
          className={inputClass}
        />
      </div>
      <div>
        <label htmlFor="create-slug" className={labelClass}>
          Custom slug <span className={mutedClass}>(optional)</span>
        </label>
        <input
          id="create-slug"
          name="slug"
          defaultValue={state?.input.slug}
          placeholder="spring-menu"
          className={inputClass}
          aria-describedby="create-slug-help"
        />
        <p id="create-slug-help" className="sr-only">
          Leave empty for an allocated seven-character slug.
        </p>
      </div>
      <div>
        <label htmlFor="create-domain" className={labelClass}>
          Domain
        </label>
        <select id="create-domain" name="domain_id" className={inputClass} defaultValue={state?.input.domain_id ?? ""}>
          <option value="">Default short domain</option>
          {domains.map((domain) => (
            <option key={domain.id} value={domain.id}>
              {domain.hostname}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className={buttonClass.primary} disabled={pending}>
        {pending ? "Creating…" : "Create link"}
      </button>
      <div className="md:col-span-4" aria-live="polite">
        {state && !state.ok && (
          <p role="alert" className={errorClass + " m-0"}>
            {state.error}
          </p>
        )}
        {state?.ok && (
          <div className={noticeClass + " m-0 flex flex-wrap items-center gap-2"}>
            <span>{state.value.created ? "Created" : "You already had a link to this destination"}:</span>
            <a href={state.value.link.short_url} className="font-semibold" data-testid="created-short-url">
              {state.value.link.short_url}
            </a>
            <CopyButton text={state.value.link.short_url} what={state.value.link.short_url} />
          </div>
        )}
      </div>
    </form>
  );
}
