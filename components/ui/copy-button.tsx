"use client";

import { useState } from "react";
import { Button } from "./button";

/**
 * Copies `text`. The visible word (Copy, then Copied) starts the button's name and `what` ends it
 * for screen readers ("Copy the API key"), so the name always holds what the eye reads.
 */
export function CopyButton({ text, what }: { text: string; what: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    await navigator.clipboard.writeText(text);
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  }
  return (
    <Button variant="small" onClick={() => void copy()}>
      <span aria-live="polite">{copied ? "Copied" : "Copy"}</span>
      <span className="sr-only"> {what}</span>
    </Button>
  );
}
