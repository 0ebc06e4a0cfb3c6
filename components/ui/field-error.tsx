"use client";

import { useEffect } from "react";
import { CustomerSentence } from "./customer-sentence";

/** An action's answer as far as fields go: a refusal may name the body field it is about. */
type ActionAnswer = { ok: true } | { ok: false; error: string; field?: string } | null | undefined;

/**
 * A refusal about one field, shown under it: the field points at it (aria-describedby), is marked
 * invalid, and takes the keyboard's focus when the refusal arrives, so the person lands where the
 * fix goes. Field (field.tsx) draws it and ties the control to it.
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

/** The refusal's sentence when it is about this field. */
export function errorFor(name: string, state: ActionAnswer): string | undefined {
  return state && !state.ok && state.field === name ? state.error : undefined;
}
