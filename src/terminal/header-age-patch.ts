// On an idle dashboard the one thing that changes is the headers' ages, once a minute, all at once
// (age-clock.ts). Rendering every header again for that (names sanitized, cells measured, parts
// padded), then reading old and new into cells to find the one or two that differ
// (segment-diff.ts), cost the server 7-16 ms of CPU a turn for 16 rows (issue #33), most of an
// idle minute. The header renderer says where its age sits instead: a field of fixed width
// (formatAgeField), so a turn changes those cells and nothing beside them. A turn then writes the
// new field into the header's text at that place and sends those cells alone, in the header's
// colours. A field that would change width (past "99d"), or a header with no room for its age,
// is left to a full paint.
import { SGR_RESET } from './escapes.js';

/** Where a header's age field is: at string index `index` of its line and cell `column`, drawn in the SGR `style`. */
export interface HeaderAgeSpot {
  index: number;
  column: number;
  text: string;
  style: string;
}

/** A header line as its renderer gives it, and its age field's place (null: it has none to rewrite alone). */
export interface RenderedHeader {
  line: string;
  age: HeaderAgeSpot | null;
}

/** The header reading `field` for its age, and what to send for it: `span` drawn from cell `offset`. */
export interface HeaderAgeTurn {
  header: RenderedHeader;
  offset: number;
  span: string;
}

/**
 * The header with its age field reading `field`: null when it reads that already, 'repaint' when
 * the field cannot be rewritten in place (no spot, or another width).
 */
export function turnHeaderAge(header: RenderedHeader, field: string): HeaderAgeTurn | null | 'repaint' {
  const age = header.age;
  if (age === null) return 'repaint';
  if (age.text === field) return null;
  if (age.text.length !== field.length) return 'repaint';
  const line = header.line.slice(0, age.index) + field + header.line.slice(age.index + field.length);
  // Only the cells that differ ("<1m" to " 1m": two; " 1m" to " 2m": one); the field is ASCII, a cell a character.
  let first = 0;
  while (age.text[first] === field[first]) first++;
  let last = field.length - 1;
  while (age.text[last] === field[last]) last--;
  // A style that starts with its own reset needs none before it (as segment-diff.ts sends spans).
  const style = age.style.startsWith('\x1b[0;') || age.style === SGR_RESET ? age.style : SGR_RESET + age.style;
  return { header: { line, age: { ...age, text: field } }, offset: age.column + first, span: style + field.slice(first, last + 1) + SGR_RESET };
}
