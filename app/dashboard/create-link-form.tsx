"use client";

import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { CustomerSentence } from "@/components/ui/customer-sentence";
import { SelectField, TextField } from "@/components/ui/field";
import { errorFor } from "@/components/ui/field-error";
import { errorClass, noticeClass } from "@/components/ui/styles";
import type { UtmTemplateView } from "@/lib/utm/schemas";
import { useActionState } from "react";
import { createLinkAction, type CreateLinkState } from "./links/actions";
import { TagsField } from "./tags-field";
import { DestinationField, UtmBuilder, useUtmDestination } from "./utm-builder";

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
      <DestinationField
        utm={utm}
        id="create-destination"
        label="Destination"
        error={errorFor("destination", state)}
        autoComplete="url"
        placeholder="example.com/spring-menu"
      />
      <TextField
        id="create-slug"
        label="Custom slug"
        optional
        help="Leave empty for an allocated seven-character slug."
        helpClassName="sr-only"
        error={errorFor("slug", state)}
        name="slug"
        defaultValue={state?.input.slug}
        placeholder="spring-menu"
      />
      <SelectField
        id="create-domain"
        label="Domain"
        error={errorFor("domain_id", state)}
        name="domain_id"
        defaultValue={state?.input.domain_id ?? ""}
      >
        <option value="">Default short domain</option>
        {domains.map((domain) => (
          <option key={domain.id} value={domain.id}>
            {domain.hostname}
          </option>
        ))}
      </SelectField>
      <TextField
        id="create-title"
        label="Title"
        optional
        error={errorFor("title", state)}
        className="md:col-span-2 md:row-start-2"
        name="title"
        defaultValue={state?.input.title}
        placeholder="Spring menu, table cards"
      />
      <TagsField
        idPrefix="create"
        typed={state?.input.tags}
        tagNames={tagNames}
        error={errorFor("tags", state)}
        className="md:col-span-2 md:row-start-2"
      />
      <Button type="submit" variant="primary" className="md:col-start-4 md:row-start-1 md:mt-5" disabled={pending}>
        {pending ? "Creating…" : "Create link"}
      </Button>
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
