// readJsonFile sizes its buffer from fstat (issue #33: a buffer of the limit zero-filled 1 MB at
// every config read): the limit still holds at its edge, and what is read is the whole file.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readJsonFile } from '../../../src/config/read-json-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-read-json-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A JSON file of exactly `bytes` bytes: a string padded to fit. */
function jsonOf(bytes: number): string {
  return `{"pad":"${'x'.repeat(bytes - '{"pad":""}'.length)}"}`;
}

describe('readJsonFile', () => {
  it('reads a file of exactly the limit, whole, with the hash of its bytes', () => {
    const text = jsonOf(4096);
    writeFileSync(join(dir, 'edge.json'), text);
    const r = readJsonFile(join(dir, 'edge.json'), 4096);
    expect(r.ok && (r.value as { pad: string }).pad.length).toBe(4096 - '{"pad":""}'.length);
    expect(r.ok && r.sha256).toBe(createHash('sha256').update(text).digest('hex'));
  });

  it('refuses a file one byte past the limit', () => {
    writeFileSync(join(dir, 'over.json'), jsonOf(4097));
    const r = readJsonFile(join(dir, 'over.json'), 4096);
    expect(!r.ok && r.message).toMatch(/is 4097 bytes; the limit is 4096/);
  });

  it('reads an empty file as the syntax error it is, and a small one whole', () => {
    writeFileSync(join(dir, 'empty.json'), '');
    expect(readJsonFile(join(dir, 'empty.json'), 4096).ok).toBe(false);
    writeFileSync(join(dir, 'small.json'), '{"a": [1, 2, 3]} // note');
    const r = readJsonFile(join(dir, 'small.json'), 4096);
    expect(r.ok && r.value).toEqual({ a: [1, 2, 3] });
  });
});
