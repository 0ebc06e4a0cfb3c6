/**
 * A block of code to read or copy. It scrolls sideways when a line is long, so it takes keyboard
 * focus (tabIndex 0): a scrolling region nobody can reach without a mouse fails WCAG 2.1.1.
 */
export function CodeBlock({ children }: { children: string }) {
  return (
    <pre tabIndex={0}>
      <code>{children}</code>
    </pre>
  );
}
