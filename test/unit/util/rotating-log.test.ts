import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RotatingLog } from '../../../src/util/rotating-log.js';

describe('RotatingLog', () => {
  it('never holds more than twice its size on disk, keeps the newest lines, and cuts long lines', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'swb-log-')), 'hub.log');
    const log = new RotatingLog(file, 10_000, 200);
    for (let i = 0; i < 5000; i++) log.append(`line ${i} ${'x'.repeat(i % 3 === 0 ? 1000 : 20)}`);
    const size = statSync(file).size + statSync(`${file}.1`).size;
    expect(size).toBeLessThanOrEqual(20_000 + 300);
    expect(readFileSync(file, 'utf8').trimEnd().split('\n').at(-1)).toMatch(/^line 4999 /);
    expect(Math.max(...readFileSync(file, 'utf8').split('\n').map((l) => l.length))).toBeLessThanOrEqual(201);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('writes no control byte: escape sequences, BEL, C1 and bidi controls become placeholders; a second line of an entry is indented', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'swb-log-')), 'server.log');
    const log = new RotatingLog(file);
    log.append('row record evil\x1b]52;c;cHduZWQ=\x07 is not readable; tab\there \x9b31m \u202eabc \x7f');
    log.append('uncaught: Error: boom\n    at f (x.js:1:1)\n2026-01-01T00:00:00.000Z forged entry');
    const bytes = readFileSync(file);
    for (const b of bytes) expect(b === 0x0a || (b >= 0x20 && b !== 0x7f)).toBe(true);
    const text = bytes.toString('utf8');
    expect(text).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(text).toContain('row record evil\u241b is not readable');
    expect(text.split('\n').slice(1, 4)).toEqual(['uncaught: Error: boom', '      at f (x.js:1:1)', '  2026-01-01T00:00:00.000Z forged entry']);
  });

  it('a log it cannot write (directory gone) loses the line and does not throw', () => {
    const log = new RotatingLog('/nonexistent-dir/hub.log');
    expect(() => log.append('lost')).not.toThrow();
  });
});
