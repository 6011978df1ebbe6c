import { afterEach, describe, expect, test } from 'vitest';
import { RowManager } from '../../../src/rows/row-manager.js';
import { isProcessAlive } from '../../../src/rows/process-tree.js';
import type { Row } from '../../../src/rows/row.js';
import { program, rowOptions } from './helpers.js';
import { waitUntil } from '../../helpers/wait-until.js';

const managers: RowManager[] = [];

function manager(mintToken?: (name: string) => string): RowManager {
  const m = new RowManager({ ...rowOptions(), ...(mintToken ? { mintToken } : {}) });
  managers.push(m);
  return m;
}

const text = (row: Row) => row.screen.snapshot().lines.join('\n');

afterEach(() => {
  for (const m of managers.splice(0)) m.dispose();
});

describe('RowManager', () => {
  test('creates rows from specs, looks them up and lists them in order', () => {
    const m = manager();
    const added: string[] = [];
    m.onRowAdded((row) => added.push(row.name));
    const a = m.create({ name: 'alpha', command: 'sleep 30', profile: 'claude' });
    const b = m.create({ name: 'beta', command: { file: program('hold-fds.sh') } }, { cols: 100, rows: 40 });
    expect(m.get('alpha')).toBe(a);
    expect(m.has('beta')).toBe(true);
    expect(m.list().map((r) => r.name)).toEqual(['alpha', 'beta']);
    expect(added).toEqual(['alpha', 'beta']);
    expect(a.profileId).toBe('claude');
    expect([b.cols, b.rows]).toEqual([100, 40]);
    expect([a.cols, a.rows]).toEqual([80, 24]);
  });

  test('refuses a duplicate or invalid name', () => {
    const m = manager();
    m.create({ name: 'alpha', command: 'sleep 30' });
    expect(() => m.create({ name: 'alpha', command: 'sleep 30' })).toThrow(/already exists/);
    expect(() => m.create({ name: '-bad', command: 'sleep 30' })).toThrow(/invalid row name/);
    expect(() => m.create({ name: 'a b', command: 'sleep 30' })).toThrow(/invalid row name/);
    expect(() => m.create({ name: 'x'.repeat(65), command: 'sleep 30' })).toThrow(/invalid row name/);
    expect(() => m.create({ name: 'operator', command: 'sleep 30' })).toThrow(/reserved/);
    expect(() => m.create({ name: 'all', command: 'sleep 30' })).toThrow(/reserved/);
    expect(m.size).toBe(1);
  });

  test('mints a token per incarnation through the caller', async () => {
    const minted: string[] = [];
    const m = manager((name) => {
      minted.push(name);
      return `${name}-${minted.length}`;
    });
    const row = m.create({ name: 'alpha', command: { file: program('print-env.sh') } });
    await waitUntil(() => text(row).includes('SWB_TOKEN=alpha-1'), { what: 'first token', timeoutMs: 10_000 });
    expect(m.restart('alpha')).toBe(row);
    await waitUntil(() => text(row).includes('SWB_TOKEN=alpha-2'), { what: 'second token', timeoutMs: 10_000 });
    expect(minted).toEqual(['alpha', 'alpha']);
    expect(() => m.restart('nobody')).toThrow(/no row named/);
  });

  test('close ends the row and forgets it', async () => {
    const m = manager();
    const row = m.create({ name: 'alpha', command: 'sleep 30' });
    const removed: string[] = [];
    m.onRowRemoved((r) => removed.push(r.name));
    const pid = row.pid;
    expect(m.close('alpha')).toBe(true);
    expect(m.close('alpha')).toBe(false);
    expect(m.get('alpha')).toBeUndefined();
    expect(removed).toEqual(['alpha']);
    await waitUntil(() => !isProcessAlive(pid), { what: 'process gone', timeoutMs: 10_000 });
    // The name is free again.
    m.create({ name: 'alpha', command: 'sleep 30' });
  });

  test('dispose ends every child', async () => {
    const m = manager();
    const pids = ['a', 'b', 'c'].map((name) => m.create({ name, command: 'sleep 30' }).pid);
    m.dispose();
    expect(m.size).toBe(0);
    expect(() => m.create({ name: 'd', command: 'sleep 30' })).toThrow(/closed/);
    await waitUntil(() => pids.every((pid) => !isProcessAlive(pid)), { what: 'all processes gone', timeoutMs: 10_000 });
  });
});
