"use client";

import { useState } from "react";
import { buttonClass } from "./styles";

/** Copies `text`; says so for screen readers too. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    await navigator.clipboard.writeText(text);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  }
  return (
    <button type="button" className={buttonClass.small} onClick={() => void copy()} aria-label={label}>
      <span aria-live="polite">{copied ? "Copied" : "Copy"}</span>
    </button>
  );
}
