/** A link status in the customer's words, with what it means (the badge's label and tooltip, the history's sentences). */
export const STATUS_WORDS = {
  0: { label: "Active", explanation: "Released from quarantine: visits redirect straight away without a live check." },
  1: {
    label: "New: checked live",
    explanation:
      "New or repointed: it works now, and each visit runs a live safety check until enough clean checks over enough days release it.",
  },
  2: {
    label: "Abuse",
    explanation:
      "Blocked after a safety verdict or an operator's review: visitors see a warning page instead of the destination.",
  },
} as const;
