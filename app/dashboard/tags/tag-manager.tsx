"use client";

import { Button } from "@/components/ui/button";
import { Confirm } from "@/components/ui/confirm";
import { SelectField, TextField } from "@/components/ui/field";
import { errorFor } from "@/components/ui/field-error";
import { ActionOutcome, type ActionSentence } from "@/components/ui/outcome";
import { cardClass } from "@/components/ui/styles";
import { TagChip } from "@/components/ui/tag-chip";
import type { TagView } from "@/lib/tags/schemas";
import Link from "next/link";
import { useActionState, useState, useTransition } from "react";
import { addTagAction, deleteTagAction, recolourTagAction, renameTagAction, type AddTagState } from "./actions";

const colourName = (color: string) => color[0]!.toUpperCase() + color.slice(1);

function ColourOptions({ colors }: { colors: readonly string[] }) {
  return colors.map((color) => (
    <option key={color} value={color}>
      {colourName(color)}
    </option>
  ));
}

/** A field's word for the eye, and which tag's it is for screen readers: "Name of menus". */
function OfTag({ word, name }: { word: string; name: string }) {
  return (
    <>
      {word}
      <span className="sr-only"> of {name}</span>
    </>
  );
}

/** A new tag's name and colour; a refusal puts back what was typed, under the field it is about. */
export function AddTagForm({ colors, nameMax }: { colors: readonly string[]; nameMax: number }) {
  const [state, add, adding] = useActionState<AddTagState, FormData>(addTagAction, null);
  const nameError = errorFor("name", state);
  const colorError = errorFor("color", state);
  return (
    <form action={add} key={state?.attempt ?? 0} className="grid gap-3 sm:grid-cols-[1fr_12rem_auto] sm:items-start">
      <TextField
        id="new-tag-name"
        label="Name"
        error={nameError}
        name="name"
        required
        maxLength={nameMax}
        defaultValue={state?.typed?.name}
        placeholder="menus"
      />
      <SelectField
        id="new-tag-colour"
        label="Colour"
        error={colorError}
        name="color"
        defaultValue={state?.typed?.color || "blue"}
      >
        <ColourOptions colors={colors} />
      </SelectField>
      <Button type="submit" variant="primary" className="sm:mt-5" disabled={adding}>
        Add tag
      </Button>
      <div className="sm:col-span-3">{!nameError && !colorError && <ActionOutcome state={state} />}</div>
    </form>
  );
}

/**
 * The workspace's tags; for owners and admins, each with its name to change, its colour and a
 * deletion that asks first. The last change's sentence shows above the list, since a deleted
 * tag's row is gone.
 */
export function TagList({
  tags,
  colors,
  edits,
  nameMax,
  emptyText,
}: {
  tags: TagView[];
  colors: readonly string[];
  edits: boolean;
  nameMax: number;
  /** What an empty list says; the list stays drawn, so the sentence of deleting the last tag stays too. */
  emptyText: string;
}) {
  const [outcome, setOutcome] = useState<ActionSentence>(null);
  const [pending, startTransition] = useTransition();
  const run = (change: () => Promise<ActionSentence>) => startTransition(async () => setOutcome(await change()));
  return (
    <div className="space-y-3">
      <ActionOutcome state={outcome} />
      {tags.length === 0 && <p className={cardClass + " m-0 text-center"}>{emptyText}</p>}
      <ul className="m-0 grid list-none gap-3 p-0 lg:grid-cols-2" aria-label="Tags" hidden={tags.length === 0}>
        {tags.map((tag) => (
          <li key={tag.id} aria-label={tag.name} className={cardClass + " space-y-3 p-4"}>
            <div className="flex flex-wrap items-center justify-between gap-2">
              <TagChip name={tag.name} color={tag.color} />
              <Link href={`/dashboard?tag=${encodeURIComponent(tag.name)}`} className="text-sm">
                Links with this tag<span className="sr-only">: {tag.name}</span>
              </Link>
            </div>
            {edits && (
              // Drawn afresh when the tag's name or colour changes, so the fields show what it is now.
              <TagEditor
                key={`${tag.name}:${tag.color}`}
                tag={tag}
                colors={colors}
                nameMax={nameMax}
                pending={pending}
                run={run}
              />
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

function TagEditor({
  tag,
  colors,
  nameMax,
  pending,
  run,
}: {
  tag: TagView;
  colors: readonly string[];
  nameMax: number;
  pending: boolean;
  run: (change: () => Promise<ActionSentence>) => void;
}) {
  const [name, setName] = useState(tag.name);
  return (
    <div className="space-y-3">
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          run(() => renameTagAction(tag.id, name));
        }}
      >
        <TextField
          id={`tag-name-${tag.id}`}
          label={<OfTag word="Name" name={tag.name} />}
          className="min-w-0 grow basis-40"
          required
          maxLength={nameMax}
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        <Button type="submit" disabled={pending || name.trim() === tag.name}>
          Rename<span className="sr-only"> {tag.name}</span>
        </Button>
      </form>
      <div className="flex flex-wrap items-end justify-between gap-2">
        <SelectField
          id={`tag-colour-${tag.id}`}
          label={<OfTag word="Colour" name={tag.name} />}
          className="min-w-0 grow basis-40"
          defaultValue={tag.color}
          disabled={pending}
          onChange={(event) => {
            const color = event.target.value;
            run(() => recolourTagAction(tag.id, color));
          }}
        >
          <ColourOptions colors={colors} />
        </SelectField>
        <Confirm
          label="Delete"
          what={`the tag ${tag.name}`}
          question={`Delete the tag "${tag.name}"? The links that carry it stay as they are and keep working; they only lose this tag.`}
          confirm={`Yes, delete "${tag.name}"`}
          onConfirm={() => run(() => deleteTagAction(tag.id))}
          pending={pending}
        />
      </div>
    </div>
  );
}
