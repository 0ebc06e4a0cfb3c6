/**
 * A line for the person at the terminal, not a log event: plain text on a line of its own on the server's output,
 * whatever the log's format or level (the JSON lines stay as they are, for machines).
 */
export function tellOperator(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** A duration as a person reads it: "45 s", "2 min 5 s". */
export function spokenDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min${seconds % 60 ? ` ${seconds % 60} s` : ""}`;
}
