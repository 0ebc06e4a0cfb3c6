/**
 * Import files of the shapes an adversarial review sent: wide enough, deep enough or
 * long enough that reading them carelessly holds the event loop for minutes or runs out of stack.
 */

/** A CSV with a destination column and `columns - 1` more, and `rows` rows: 200,000 × 40 is about 9.5 MB. */
export function wideCsv(columns: number, rows: number): string {
  const header = ["url", ...Array.from({ length: columns - 1 }, (_, index) => `c${index}`)].join(",");
  const row = `https://example.com/wide${",".repeat(columns - 1)}`;
  return `${header}\n${`${row}\n`.repeat(rows)}`;
}

/** A JSON export of one link whose `field` is a list nested `depth` deep around a string. */
export function deepJson(field: "tags" | "title" | "url", depth: number): string {
  const nested = `${"[".repeat(depth)}"x"${"]".repeat(depth)}`;
  const link = { url: "https://example.com/deep", title: "Deep", tags: ["a"] };
  return JSON.stringify([link]).replace(JSON.stringify(link[field]), nested);
}

/**
 * A legitimate CSV of `rows` links to `destinations` distinct pages, each row about `rowBytes` long:
 * 100,000 × 170 is the review's 17 MB. Rows after the first for a page are folded into its link.
 */
export function largeCsv(rows: number, { rowBytes = 170, destinations = rows } = {}): string {
  const lines = Array.from({ length: rows }, (_, index) => {
    const start = `https://example.com/large/${index % destinations},Title of link ${index},`;
    return start + "t".repeat(Math.max(1, rowBytes - start.length));
  });
  return `url,title,tags\n${lines.join("\n")}\n`;
}
