/**
 * What a person typed as a destination, as they meant it: without a scheme ("example.com/menu") it
 * gets https://, as other link services do. Anything with a scheme of its own is left for the
 * links capability to accept or refuse in its words; the API stays strict.
 * The one rule for every place a person types or brings a destination: the dashboard's create,
 * repoint, routing rules and scheduled changes, and an import's rows (a peer's export may write
 * "example.com/menu"). Browser-safe: it imports nothing.
 */
export function withScheme(typed: string): string {
  const value = typed.trim();
  // "host:8080/path" is a port, not a scheme.
  if (value === "" || /^[a-z][a-z\d+.-]*:(?!\d)/i.test(value)) return value;
  return `https://${value.replace(/^\/+/, "")}`;
}
