// The workspace server's bundle is source V8 keeps for as long as the server runs: functions are
// compiled from it lazily, when first called. V8 stores a string one byte a character only while
// every character is at most U+00FF; a single em dash anywhere makes all of it two bytes a
// character. esbuild writes code ASCII (it escapes strings), but keeps comments as written, and
// ours hold dashes and arrows: the 3 MB bundle sat in the base server's heap as 6 MB (issue #33,
// a heap snapshot of the server with one row). The build passes the bundle through this, which
// writes each character above U+00FF as a \u escape: in a comment it is only text, and in a
// string, template or regular expression \u means the character itself.

/** Characters a one-byte string cannot hold (as UTF-16 code units: a surrogate is one too). */
const WIDE = /[\u0100-\uffff]/g;

/** `source` with every character above U+00FF written as its \u escape: the same program, one byte a character. */
export function oneByteSource(source: string): string {
  return source.replace(WIDE, (ch, at: number) => {
    const escape = `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    // `\—` (an identity escape in a string or a regular expression) is the character itself: its
    // backslash goes, or it would escape the escape's own.
    let slashes = 0;
    while (at - slashes - 1 >= 0 && source.charCodeAt(at - slashes - 1) === 0x5c) slashes++;
    return slashes % 2 === 1 ? escape.slice(1) : escape;
  });
}
