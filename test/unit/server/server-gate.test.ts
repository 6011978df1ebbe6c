// The go line a launching client sends its held server (src/server/server-gate.ts): only the flags a
// client settles, each with its value; anything else is refused whole.
import { describe, expect, test } from 'vitest';
import { GoLineReader, parseGoLine } from '../../../src/server/server-gate.js';

describe('parseGoLine', () => {
  test('go with the flags a client settles', () => {
    expect(parseGoLine('{"go":true,"flags":[]}')).toEqual({ go: true, flags: [] });
    expect(parseGoLine('{"go":true,"flags":[],"cwd":"/w s/p"}')).toEqual({ go: true, flags: [], cwd: '/w s/p' });
    expect(parseGoLine('{"go":true,"flags":["--config","/a b/c.json","--workspace","w","--fresh"]}')).toEqual({
      go: true,
      flags: ['--config', '/a b/c.json', '--workspace', 'w', '--fresh'],
    });
  });

  test('refuses anything else, saying what', () => {
    expect(parseGoLine('go')).toEqual({ bad: 'the go line is not JSON' });
    expect(parseGoLine('{"go":"yes","flags":[]}')).toEqual({ bad: 'the go line does not say go' });
    expect(parseGoLine('null')).toEqual({ bad: 'the go line does not say go' });
    expect(parseGoLine('{"go":true}')).toEqual({ bad: 'the go line has no list of flags' });
    expect(parseGoLine('{"go":true,"flags":[1]}')).toEqual({ bad: 'the go line has no list of flags' });
    for (const cwd of ['"rel/dir"', '""', '3', '"/a\\u0000b"']) expect(parseGoLine(`{"go":true,"flags":[],"cwd":${cwd}}`)).toEqual({ bad: "the go line's cwd is not an absolute path" });
    // A flag no client settles: not the rows' own, nor the server's internal ones.
    expect(parseGoLine('{"go":true,"flags":["--ready-fd","4"]}')).toEqual({ bad: 'the go line carries "--ready-fd", not a flag a client settles' });
    expect(parseGoLine('{"go":true,"flags":["--held"]}')).toEqual({ bad: 'the go line carries "--held", not a flag a client settles' });
    expect(parseGoLine('{"go":true,"flags":["--config"]}')).toEqual({ bad: '--config in the go line has no value' });
    expect(parseGoLine('{"go":true,"flags":["--workspace",""]}')).toEqual({ bad: '--workspace in the go line has no value' });
  });
});

describe('GoLineReader', () => {
  test('takes the line in pieces, up to its newline', () => {
    const r = new GoLineReader();
    expect(r.add(Buffer.from('{"go":true,'))).toBeUndefined();
    expect(r.add(Buffer.from('"flags":["--fresh"]}\nlater'))).toEqual({ go: true, flags: ['--fresh'] });
  });

  test('an end with nothing said is a cancel; half a line, or too long a one, is refused', () => {
    expect(new GoLineReader().ended()).toEqual({ go: false });
    const half = new GoLineReader();
    half.add(Buffer.from('{"go":'));
    expect(half.ended()).toEqual({ bad: 'the go line ended without a newline' });
    const long = new GoLineReader();
    expect(long.add(Buffer.alloc(64 * 1024 + 1, 0x20))).toEqual({ bad: 'the go line is longer than 65536 bytes' });
  });
});
