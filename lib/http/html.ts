/**
 * Text for HTML: markup characters and everything beyond ASCII become numeric references, so the
 * result is ASCII whatever it shows. A lone surrogate or a C1 control has no character of its own
 * in HTML (&#150; reads as a dash), so it shows as U+FFFD.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']|[^\0-\x7f]/gu, (char) => `&#${shownCodePoint(char.codePointAt(0)!)};`);
}

function shownCodePoint(codePoint: number): number {
  const hasNoCharacter = (codePoint >= 0x80 && codePoint <= 0x9f) || (codePoint >= 0xd800 && codePoint <= 0xdfff);
  return hasNoCharacter ? 0xfffd : codePoint;
}
