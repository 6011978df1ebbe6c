import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatAuditEntry, openAuditLog } from '../../../src/agents/audit-log.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('audit log', () => {
  it('appends one private JSON line per write, bytes kept exactly', () => {
    dir = mkdtempSync(join(tmpdir(), 'swb-audit-'));
    const path = join(dir, 'sub', 'audit.log');
    const log = openAuditLog(path);
    const base = { at: 0, row: 'alice', messageIds: ['m1'], attempt: 1 };
    log.append({ ...base, bytes: 'hello', purpose: 'wake-line' });
    log.append({ ...base, bytes: '\r', purpose: 'wake-submit' });
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { bytes: string; at: string });
    expect(lines.map((l) => l.bytes)).toEqual(['hello', '\r']);
    expect(lines[0]?.at).toBe('1970-01-01T00:00:00.000Z');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(formatAuditEntry({ ...base, bytes: '\r', purpose: 'wake-submit' })).toBe(
      '1970-01-01T00:00:00.000Z alice wake-submit#1 "\\r" (mail m1)',
    );
  });
});
