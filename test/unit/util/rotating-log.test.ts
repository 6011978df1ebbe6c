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

  it('a log it cannot write (directory gone) loses the line and does not throw', () => {
    const log = new RotatingLog('/nonexistent-dir/hub.log');
    expect(() => log.append('lost')).not.toThrow();
  });
});
