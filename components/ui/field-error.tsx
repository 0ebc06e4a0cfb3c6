"use client";

import { useEffect } from "react";
import { CustomerSentence } from "./customer-sentence";

/** An action's answer as far as fields go: a refusal may name the body field it is about. */
type ActionAnswer = { ok: true } | { ok: false; error: string; field?: string } | null | undefined;

/**
 * A refusal about one field, shown under it: the field points at it (aria-describedby), is marked
 * invalid, and takes the keyboard's focus when the refusal arrives, so the person lands where the
 * fix goes.
 */
export function FieldError({ id, error }: { id: string; error: string | undefined }) {
  useEffect(() => {
    if (error) document.querySelector<HTMLElement>(`[aria-describedby~="${CSS.escape(id)}"]`)?.focus();
  }, [id, error]);
  if (!error) return null;
  return (
    <p id={id} role="alert" className="m-0 mt-1 text-sm font-medium text-red-800 dark:text-red-300">
      <CustomerSentence text={error} />
    </p>
  );
}

/**
 * The attributes that tie a field to its refusal (when the refusal is about it) and to its help text.
 * `state` is an action's answer: its `field` names the body field a refusal is about.
 */
export function fieldProps(
  name: string,
  errorId: string,
  state: ActionAnswer,
  helpId?: string,
): { "aria-invalid"?: true; "aria-describedby"?: string } {
  const invalid = errorFor(name, state) !== undefined;
  const describedBy = [invalid ? errorId : undefined, helpId].filter(Boolean).join(" ");
  return { ...(invalid && { "aria-invalid": true as const }), ...(describedBy && { "aria-describedby": describedBy }) };
}

/** The refusal's sentence when it is about this field. */
export function errorFor(name: string, state: ActionAnswer): string | undefined {
  return state && !state.ok && state.field === name ? state.error : undefined;
}
