// Lone UTF-16 surrogates (from a JSON "\ud800" escape) have no UTF-8 form. SQLite would store
// them as WTF-8 bytes that read back as three replacement characters each; replacing each with
// one U+FFFD at the boundary makes what is stored exactly what is read back.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** String.prototype.isWellFormed (Node 20+, ES2024): a scan with no regex, on every message accepted. */
const isWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;

export function toWellFormed(text: string): string {
  if (isWellFormed !== undefined && isWellFormed.call(text)) return text;
  return text.replace(LONE_SURROGATE, '\uFFFD');
}
