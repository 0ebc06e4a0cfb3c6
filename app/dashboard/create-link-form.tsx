"use client";

import { CopyButton } from "@/components/ui/copy-button";
import { CustomerSentence } from "@/components/ui/customer-sentence";
import { errorFor, FieldError, fieldProps } from "@/components/ui/field-error";
import { buttonClass, errorClass, inputClass, labelClass, mutedClass, noticeClass } from "@/components/ui/styles";
import type { UtmTemplateView } from "@/lib/utm/schemas";
import { useActionState } from "react";
import { createLinkAction, type CreateLinkState } from "./links/actions";
import { TagsField } from "./tags-field";
import { useUtmDestination, UtmBuilder } from "./utm-builder";

type Domains = { id: string; hostname: string }[];

export function CreateLinkForm({
  domains,
  templates,
  tagNames,
}: {
  domains: Domains;
  templates: UtmTemplateView[];
  tagNames: string[];
}) {
  const [state, action, pending] = useActionState<CreateLinkState, FormData>(createLinkAction, null);
  return (
    <form action={action} className="grid gap-4 md:grid-cols-[2fr_1fr_1fr_auto] md:items-start" key={state?.attempt ?? 0}>
      <CreateLinkFields state={state} pending={pending} domains={domains} templates={templates} tagNames={tagNames} />
    </form>
  );
}

/** The form's fields, drawn afresh with each attempt (the form's key): a refusal puts back what was typed. */
function CreateLinkFields({
  state,
  pending,
  domains,
  templates,
  tagNames,
}: {
  state: CreateLinkState;
  pending: boolean;
  domains: Domains;
  templates: UtmTemplateView[];
  tagNames: string[];
}) {
  const utm = useUtmDestination(state?.input.destination ?? "");
  return (
    <>
      <div>
        <label htmlFor="create-destination" className={labelClass}>
          Destination
        </label>
        <input
          id="create-destination"
          name="destination"
          type="text"
          inputMode="url"
          autoComplete="url"
          spellCheck={false}
          required
          value={utm.destination}
          onChange={(event) => utm.setDestination(event.target.value)}
          placeholder="example.com/spring-menu"
          className={inputClass}
          {...fieldProps("destination", "create-destination-error", state)}
        />
        <FieldError id="create-destination-error" error={errorFor("destination", state)} />
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
          {...fieldProps("slug", "create-slug-error", state, "create-slug-help")}
        />
        <p id="create-slug-help" className="sr-only">
          Leave empty for an allocated seven-character slug.
        </p>
        <FieldError id="create-slug-error" error={errorFor("slug", state)} />
      </div>
      <div>
        <label htmlFor="create-domain" className={labelClass}>
          Domain
        </label>
        <select
          id="create-domain"
          name="domain_id"
          className={inputClass}
          defaultValue={state?.input.domain_id ?? ""}
          {...fieldProps("domain_id", "create-domain-error", state)}
        >
          <option value="">Default short domain</option>
          {domains.map((domain) => (
            <option key={domain.id} value={domain.id}>
              {domain.hostname}
            </option>
          ))}
        </select>
        <FieldError id="create-domain-error" error={errorFor("domain_id", state)} />
      </div>
      <div className="md:col-span-2 md:row-start-2">
        <label htmlFor="create-title" className={labelClass}>
          Title <span className={mutedClass}>(optional)</span>
        </label>
        <input
          id="create-title"
          name="title"
          defaultValue={state?.input.title}
          placeholder="Spring menu, table cards"
          className={inputClass}
          {...fieldProps("title", "create-title-error", state)}
        />
        <FieldError id="create-title-error" error={errorFor("title", state)} />
      </div>
      <div className="md:col-span-2 md:row-start-2">
        <TagsField idPrefix="create" typed={state?.input.tags} tagNames={tagNames} state={state} />
      </div>
      <button type="submit" className={buttonClass.primary + " md:col-start-4 md:row-start-1 md:mt-5"} disabled={pending}>
        {pending ? "Creating…" : "Create link"}
      </button>
      <div className="md:col-span-4">
        <UtmBuilder idPrefix="create" utm={utm} templates={templates} />
      </div>
      <div className="md:col-span-4">
        {state && !state.ok && !state.field && (
          <p role="alert" className={errorClass + " m-0"}>
            <CustomerSentence text={state.error} />
          </p>
        )}
        {state?.ok && (
          <div role="status" className={noticeClass + " m-0 flex flex-wrap items-center gap-2"}>
            <span>{state.value.created ? "Created" : "You already had a link to this destination"}:</span>
            <a href={state.value.link.short_url} className="font-semibold" data-testid="created-short-url">
              {state.value.link.short_url}
            </a>
            <CopyButton text={state.value.link.short_url} what={state.value.link.short_url} />
          </div>
        )}
      </div>
    </>
  );
}
